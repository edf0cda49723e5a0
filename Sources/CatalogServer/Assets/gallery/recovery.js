// Images that failed: was it the image, or the server? A restart or a network drop too short
// for any page request to see left the images that failed meanwhile failed for good (the
// gallery asked for them again only once it had shown an error).

import { api } from './api.js';

const FIRST_LOOK = 1000; // ms from a failed image to the look at the server
const LONGEST = 16000; // ms between two looks at most, while the server is away

export class ImageRecovery {
  constructor(gallery) {
    this.gallery = gallery;
    this.timer = 0;
    // The network is back: what failed without it may load now.
    window.addEventListener('online', () => {
      gallery.tiles.retryFailed();
      gallery.viewer.retryFailed();
      gallery.schedule();
    });
    // The viewer's image or details failed (viewer.js).
    window.addEventListener('catalog-image-failed', () => this.imageFailed());
  }

  /** An image failed: a look at /api/health (one at a time) says whether the server answers.
   *  Not answering, the error is shown and the look made again, ever more slowly, until it
   *  answers: then every failed image is asked for again (the gallery's `answered`).
   *  Answering, each failed image is asked for once more, then left as it is. */
  imageFailed() {
    if (this.timer) return;
    const look = (delay) => {
      this.timer = setTimeout(async () => {
        const gallery = this.gallery;
        try {
          await api.health();
        } catch (error) {
          // Away (no answer, or a 5xx: its database): said, and looked at again. Another answer
          // (a proxy that does not pass /api/health) says nothing of the images: left as it is.
          if (error.status === 0 || error.status >= 500) {
            gallery.fail(error);
            look(Math.min(delay * 2, LONGEST));
          } else {
            this.timer = 0;
          }
          return;
        }
        this.timer = 0;
        if (gallery.status.kind === 'error') gallery.answered();
        else gallery.tiles.retryFailed(true);
        gallery.viewer.retryFailed();
        gallery.schedule();
      }, delay);
    };
    look(FIRST_LOOK);
  }
}
