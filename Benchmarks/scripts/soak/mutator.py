#!/usr/bin/env python3
# Mutates TREE about once a second: add, delete, rename, move, replace, touch, folder ops.
import os, random, shutil, sys, time, json
tree, dur, log = sys.argv[1], float(sys.argv[2]), sys.argv[3]
CORPUS = os.environ.get('SOAK_CORPUS', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '.corpus', 'scan-100000'))
pool = []
for d in range(50, 100):
    dd = f'{CORPUS}/{d:02d}'
    pool += [f'{dd}/{f}' for f in os.listdir(dd)]
rnd = random.Random(1234)
seq = 0
def files():
    out = []
    for r, ds, fs in os.walk(tree):
        out += [os.path.join(r, f) for f in fs]
    return out
def dirs():
    return [r for r, ds, fs in os.walk(tree) if r != tree]
def newname(ext=None):
    global seq; seq += 1
    src = rnd.choice(pool)
    return src, f'm{seq:06d}{os.path.splitext(src)[1] if ext is None else ext}'
counts = {}
t0 = time.time()
lf = open(log, 'a')
while time.time() - t0 < dur:
    fl = files(); dl = dirs(); n = len(fl)
    ops = ['add', 'delete', 'rename', 'move', 'replace', 'touch', 'renamedir', 'newdir', 'deldir', 'nestdir', 'burst', 'fastfire']
    w = [10, 10, 8, 8, 6, 6, 2, 2, 2, 1, 1, 2]
    if n > 21000: w[0] = 1; w[10] = 0; w[7] = 0; w[1] = 25; w[8] = 6
    if n < 19000: w[1] = 1; w[8] = 0; w[0] = 25; w[10] = 3
    op = rnd.choices(ops, w)[0]
    detail = ''
    try:
        if op == 'add':
            for _ in range(rnd.randint(1, 5)):
                src, nm = newname(); shutil.copyfile(src, os.path.join(rnd.choice(dl), nm))
        elif op == 'delete':
            for f in rnd.sample(fl, rnd.randint(1, 5)): os.remove(f)
        elif op == 'rename':
            f = rnd.choice(fl); _, nm = newname(os.path.splitext(f)[1]); os.rename(f, os.path.join(os.path.dirname(f), nm))
        elif op == 'move':
            for f in rnd.sample(fl, rnd.randint(1, 3)):
                os.rename(f, os.path.join(rnd.choice(dl), os.path.basename(f) + '.mv' + str(rnd.randint(0, 9999)) + os.path.splitext(f)[1]))
        elif op == 'replace':  # new content at an existing path
            for f in rnd.sample(fl, rnd.randint(1, 3)):
                shutil.copyfile(rnd.choice(pool), f)
        elif op == 'touch':  # mtime change -> date order changes (corpus images have no EXIF date? then mtime)
            for f in rnd.sample(fl, rnd.randint(1, 5)):
                t = time.time() - rnd.randint(0, 10**8); os.utime(f, (t, t))
        elif op == 'renamedir':
            d = rnd.choice(dl); nd = os.path.join(os.path.dirname(d), f'r{rnd.randint(0,10**6)}'); os.rename(d, nd); detail = f'{d}->{nd}'
        elif op == 'newdir':
            d = os.path.join(tree, f'n{rnd.randint(0,10**6)}'); os.mkdir(d)
            for _ in range(rnd.randint(10, 60)):
                src, nm = newname(); shutil.copyfile(src, os.path.join(d, nm))
        elif op == 'deldir':
            small = [d for d in dl if not any(os.path.isdir(os.path.join(d, x)) for x in os.listdir(d))]
            small.sort(key=lambda d: len(os.listdir(d)))
            d = rnd.choice(small[:max(1, len(small)//2)]); detail = f'{d} ({len(os.listdir(d))})'; shutil.rmtree(d)
        elif op == 'nestdir':
            a, b = rnd.sample(dl, 2)
            if not b.startswith(a + '/') and not a.startswith(b + '/'):
                os.rename(a, os.path.join(b, os.path.basename(a) + 'x')); detail = f'{a} into {b}'
        elif op == 'burst':
            d = rnd.choice(dl)
            for _ in range(200):
                src, nm = newname(); shutil.copyfile(src, os.path.join(d, nm))
        elif op == 'fastfire':  # create then delete / rename chains quickly
            d = rnd.choice(dl); src, nm = newname(); p = os.path.join(d, nm)
            shutil.copyfile(src, p); os.rename(p, p + '.tmp'); os.rename(p + '.tmp', p)
            shutil.copyfile(rnd.choice(pool), p); os.remove(rnd.choice(fl))
    except (FileNotFoundError, IndexError, ValueError, OSError) as e:
        detail += f' err {e!r}'
    counts[op] = counts.get(op, 0) + 1
    print(json.dumps({'t': round(time.time() - t0, 1), 'op': op, 'files': n, 'dirs': len(dl), 'detail': detail}), file=lf, flush=True)
    time.sleep(rnd.uniform(0.5, 1.5))
print(json.dumps({'done': counts}), file=lf, flush=True)
