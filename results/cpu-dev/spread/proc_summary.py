import json,statistics as st,sys
rows={}
for l in open(sys.argv[1]):
    d=json.loads(l)
    key="%s/%d [%s]"%(d['op'],d['n'],d['mode'])
    rows.setdefault(key,[]).append((st.median([s['median_ms'] for s in d['sets']]), st.median([s['cpu_median_ms'] for s in d['sets']])))
sp=lambda v:100*(max(v)/min(v)-1)
for k,v in rows.items():
    w=[x[0] for x in v]; c=[x[1] for x in v]
    print("%-28s P=%d wall spread %5.1f%% (med %.4g)  thread-CPU spread %5.1f%% (med %.4g)  cpu/wall %.2f"%(k,len(v),sp(w),st.median(w),sp(c),st.median(c),st.median(c)/st.median(w)))
