#!/usr/bin/env python3
# Follows /api/changes generation to generation and checks the change sets reproduce /api/items order;
# random /api/page checks (frames, ids vs order, ETag/304); /api/events listener; thumbnails.
import http.client, json, random, sys, threading, time, urllib.parse, collections
base, dur, log = sys.argv[1], float(sys.argv[2]), sys.argv[3]
u = urllib.parse.urlparse(base); HOST, PORT = u.hostname, u.port
lf = open(log, 'a'); lock = threading.Lock()
stats = collections.Counter()
orders = {}   # (sort, gen) -> list of (id, path)
def out(kind, **kw):
    with lock:
        stats[kind] += 1
        print(json.dumps({'t': round(time.time() - T0, 1), 'kind': kind, **kw}), file=lf, flush=True)
T0 = time.time()
class C:
    def __init__(s): s.c = None
    def get(s, path, headers={}):
        for attempt in range(3):
            try:
                if s.c is None: s.c = http.client.HTTPConnection(HOST, PORT, timeout=60)
                s.c.request('GET', path, headers=headers); r = s.c.getresponse(); b = r.read()
                return r.status, dict((k.lower(), v) for k, v in r.getheaders()), b
            except Exception as e:
                s.c = None; out('http_exception', path=path, err=repr(e)); time.sleep(0.5)
        return None, {}, b''
def fetch_order(c, sort):
    for attempt in range(8):
        ids = []; gen = None; ok = True; off = 0; total = None
        while True:
            st, h, b = c.get(f'/api/items?offset={off}&limit=1000&sort={sort}')
            if st != 200: out('items_status', status=st, body=b[:200].decode('utf8','replace')); ok = False; break
            j = json.loads(b)
            if gen is None: gen = j['generation']; total = j['total']
            elif j['generation'] != gen or j['total'] != total: ok = False; stats['order_gen_race'] += 1; break
            ids += [(it['id'], it['path']) for it in j['items']]
            off += len(j['items'])
            if not j['items'] or off >= total: break
        if ok:
            if len(ids) != total: out('order_len_mismatch', total=total, got=len(ids))
            if len(set(i for i, _ in ids)) != len(ids): out('order_dup_ids', gen=gen)
            with lock:
                orders[(sort, gen)] = ids
                for k in sorted(orders)[:-8]: orders.pop(k, None)
            return gen, ids
    return None, None
def apply(old, cs):
    n_old = len(old)
    dels = [d['index'] for d in cs['deletes']]; mv = cs['moves']; ins = cs['inserts']
    removed = set(dels) | {m['from'] for m in mv}
    for d in cs['deletes']:
        if not (0 <= d['index'] < n_old) or old[d['index']] != d['id']: return None, f"delete {d} does not match old order"
    for m in mv:
        if not (0 <= m['from'] < n_old) or old[m['from']] != m['id']: return None, f"move {m} from does not match old order"
    if len(removed) != len(dels) + len(mv): return None, 'duplicate removed indices'
    base = [x for i, x in enumerate(old) if i not in removed]
    placed = {i['index']: i['id'] for i in ins}
    for m in mv: 
        if m['to'] in placed: return None, f'to index {m["to"]} placed twice'
        placed[m['to']] = m['id']
    n_new = len(base) + len(placed)
    new = []; it = iter(base)
    for i in range(n_new):
        new.append(placed[i] if i in placed else next(it, None))
    if None in new or any(k >= n_new for k in placed): return None, 'placed index out of range'
    for up in cs['updates']:
        if not (0 <= up['index'] < n_new) or new[up['index']] != up['id']: return None, f'update {up} does not match new order'
    return new, None
def follower(sort):
    c = C(); state_gen, state = None, None; verified = 0
    while time.time() - T0 < dur:
        if state is None:
            g, o = fetch_order(c, sort)
            if g is None: time.sleep(0.5); continue
            state_gen, state = g, [i for i, _ in o]; continue
        st, h, b = c.get(f'/api/changes?since={state_gen}&sort={sort}')
        if st != 200: out('changes_status', status=st, body=b[:300].decode('utf8','replace')); time.sleep(1); continue
        cs = json.loads(b)
        if cs['reload']: out('changes_reload', sort=sort, since=state_gen, body=cs); state = None; continue
        if cs['from'] != state_gen: out('changes_from_mismatch', sort=sort, since=state_gen, got=cs['from'])
        if cs['to'] == state_gen: time.sleep(random.uniform(0.05, 0.6)); stats['changes_noop'] += 1; continue
        new, err = apply(state, cs)
        nd = (len(cs['deletes']), len(cs['inserts']), len(cs['moves']), len(cs['updates']))
        if err: out('changeset_invalid', sort=sort, frm=state_gen, to=cs['to'], err=err, counts=nd); state = None; continue
        stats['changesets_applied'] += 1
        # verify against the order at cs['to'] when we can get it at that generation
        g, o = fetch_order(c, sort)
        if g == cs['to']:
            truth = [i for i, _ in o]
            if truth != new:
                first = next((i for i in range(min(len(truth), len(new))) if truth[i] != new[i]), None)
                out('changeset_wrong_order', sort=sort, frm=state_gen, to=cs['to'], counts=nd, len_new=len(new), len_truth=len(truth), first_diff=first,
                    ours=new[first:first+5] if first is not None else None, truth=truth[first:first+5] if first is not None else None)
                state_gen, state = g, truth; continue
            verified += 1; stats['changesets_verified_' + sort] += 1
        else:
            stats['changesets_unverified'] += 1
        state_gen, state = cs['to'], new
        time.sleep(random.uniform(0.0, 1.5))
def page_checker(seed):
    rnd = random.Random(seed); c = C(); heights = {}
    while time.time() - T0 < dur:
        w = rnd.choice([320, 375, 414, 768, 1024, 1280, 1920, rnd.uniform(200, 2500)])
        cols = rnd.randint(1, max(1, min(8, int(w // 120))))
        style = rnd.choice(['waterfall', 'waterfall', 'waterfall', 'grid', 'list'])
        sort = rnd.choice(['date', 'date', 'path'])
        key = (round(w, 3), cols, style, sort)
        ch = heights.get(key, 5000)
        off = rnd.uniform(0, ch * 1.02); hgt = rnd.choice([300, 812, 2000, rnd.uniform(1, 5000)])
        q = f'/api/page?width={w:.3f}&cols={cols}&style={style}&sort={sort}&offset={off:.2f}&height={hgt:.1f}'
        st, h, b = c.get(q)
        if st != 200: out('page_status', q=q, status=st, body=b[:300].decode('utf8','replace')); continue
        p = json.loads(b); heights[key] = p['contentHeight']; g = p['generation']
        stats['pages'] += 1
        if str(g) != h.get('x-catalog-generation'): out('page_gen_header_mismatch', q=q, body_gen=g, hdr=h.get('x-catalog-generation'))
        etag = h.get('etag')
        if not etag or f'g{g}-' not in etag: out('etag_odd', q=q, etag=etag, gen=g)
        # frames
        cols_items = collections.defaultdict(list); idx = set()
        vy0, vy1 = p['viewport']['y'], p['viewport']['y'] + p['viewport']['height']
        for it in p['items']:
            f = it['frame']
            if it['index'] in idx: out('page_dup_index', q=q, index=it['index'])
            idx.add(it['index'])
            cols_items[it['column']].append((f['y'], f['y'] + f['height'], it['id']))
            if f['x'] < -1e-6 or f['x'] + f['width'] > p['contentWidth'] + 1e-6: out('page_frame_outside_x', q=q, item=it)
            if f['y'] + f['height'] < vy0 - 1e-6 or f['y'] > vy1 + 1e-6: out('page_item_outside_viewport', q=q, item=it, vp=p['viewport'])
        for col, lst in cols_items.items():
            lst.sort()
            for a, bb in zip(lst, lst[1:]):
                if bb[0] < a[1] - 1e-6: out('page_overlap', q=q, gen=g, col=col, a=a, b=bb); break
        with lock: o = orders.get((sort, g))
        if o is not None:
            stats['pages_checked_vs_order'] += 1
            if p['itemCount'] != len(o): out('page_itemcount_mismatch', q=q, gen=g, itemCount=p['itemCount'], order=len(o))
            for it in p['items']:
                i = it['index']
                if i >= len(o) or o[i][0] != it['id'] or o[i][1] != it['path']:
                    out('page_item_vs_order', q=q, gen=g, index=i, id=it['id'], path=it['path'], order=o[i] if i < len(o) else None); break
        # ETag / 304
        st2, h2, b2 = c.get(q, {'If-None-Match': etag})
        if st2 == 304:
            stats['etag_304'] += 1
            g2 = h2.get('x-catalog-generation')
            if g2 is not None and g2 != str(g): out('etag_304_but_gen_moved', q=q, etag=etag, gen=g, hdr=g2)
        elif st2 == 200:
            p2 = json.loads(b2)
            if p2['generation'] == g: out('etag_200_same_gen', q=q, gen=g, etag=etag, etag2=h2.get('etag'))
            elif h2.get('etag') == etag: out('etag_same_for_new_gen', q=q)
            else: stats['etag_200_newgen'] += 1
        else: out('etag_status', q=q, status=st2)
        # thumbnails (sometimes)
        if p['items'] and rnd.random() < 0.3:
            it = rnd.choice(p['items'])
            st3, h3, b3 = c.get(f"/api/items/{it['id']}/thumbnail?size={rnd.choice([128,256,512])}&v={it['version']}")
            stats[f'thumb_{st3}'] += 1
            if st3 not in (200, 404): out('thumb_status', id=it['id'], status=st3, body=b3[:200].decode('utf8','replace'))
def events():
    last = None; opens = 0
    while time.time() - T0 < dur:
        try:
            c = http.client.HTTPConnection(HOST, PORT, timeout=40); c.request('GET', '/api/events'); r = c.getresponse(); opens += 1
            stats['events_opens'] += 1
            while time.time() - T0 < dur:
                line = r.fp.readline()
                if not line: out('events_eof'); break
                line = line.decode().strip()
                if line.startswith('data:'):
                    g = int(line[5:]); stats['events'] += 1
                    if last is not None and g < last: out('events_backwards', last=last, got=g)
                    last = g
                elif line.startswith(':'): stats['events_keepalive'] += 1
        except Exception as e:
            out('events_exception', err=repr(e)); time.sleep(1)
ts = [threading.Thread(target=follower, args=(s,), daemon=True) for s in ('date', 'path')]
ts += [threading.Thread(target=page_checker, args=(i,), daemon=True) for i in range(2)]
ts += [threading.Thread(target=events, daemon=True)]
for t in ts: t.start()
while time.time() - T0 < dur:
    time.sleep(30)
    with lock: print(json.dumps({'t': round(time.time() - T0, 1), 'kind': 'stats', 'stats': dict(stats)}), file=lf, flush=True)
time.sleep(2)
with lock: print(json.dumps({'kind': 'final', 'stats': dict(stats)}), file=lf, flush=True)
