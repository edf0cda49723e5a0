#!/usr/bin/env python3
# every 30 s: RSS, fds, threads, p50/p99 of a cached page, health, catalog sizes, thumbnail cache size
import http.client, json, os, subprocess, sys, time, urllib.parse
pid, base, dur, log, sizecmd, thumbs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
u = urllib.parse.urlparse(base); lf = open(log, 'a'); T0 = time.time()
def du(p):
    try: return int(subprocess.run(['du', '-sb', p], capture_output=True, text=True).stdout.split()[0])
    except Exception: return None
while time.time() - T0 < dur:
    s = {'t': round(time.time() - T0)}
    try:
        st = open(f'/proc/{pid}/status').read()
        for l in st.splitlines():
            if l.startswith(('VmRSS', 'VmHWM', 'Threads')): k, v = l.split(':'); s[k] = v.strip()
        s['fds'] = len(os.listdir(f'/proc/{pid}/fd'))
    except Exception as e: s['proc_err'] = repr(e)
    lat = []; codes = {}
    try:
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        for i in range(100):
            t = time.perf_counter(); c.request('GET', '/api/page?width=375&offset=0'); r = c.getresponse(); r.read()
            lat.append((time.perf_counter() - t) * 1000); codes[r.status] = codes.get(r.status, 0) + 1
        lat.sort(); s['p50_ms'] = round(lat[49], 2); s['p99_ms'] = round(lat[98], 2); s['max_ms'] = round(lat[-1], 2); s['codes'] = codes
        t = time.perf_counter(); c.request('GET', '/api/health'); r = c.getresponse(); s['health'] = f'{r.status} {r.read().decode()}'; s['health_ms'] = round((time.perf_counter() - t) * 1000, 2)
    except Exception as e: s['http_err'] = repr(e)
    s['sizes'] = subprocess.run(sizecmd, shell=True, capture_output=True, text=True).stdout.strip()
    s['thumbs_bytes'] = du(thumbs); s['thumbs_files'] = sum(len(f) for _, _, f in os.walk(thumbs))
    print(json.dumps(s), file=lf, flush=True)
    time.sleep(max(0, 30 - (time.time() - T0) % 30))
