import sys, re, collections
# parse `jfr print --events jdk.ExecutionSample --stack-depth 200` output
def stacks(path):
    cur=None
    for line in open(path, encoding='utf-8', errors='replace'):
        s=line.strip()
        if s.startswith('jdk.ExecutionSample'):
            cur=[]
        elif s.startswith('stackTrace = ['):
            pass
        elif cur is not None and s.startswith(']'):
            yield cur; cur=None
        elif cur is not None and ('line:' in s or s.endswith(')')) and '(' in s:
            m=re.match(r'(\S+?)\((.*?)\)', s)
            if m: cur.append(m.group(1))
def main(path, top=40, filt=None):
    self_c=collections.Counter(); incl=collections.Counter(); total=0
    for st in stacks(path):
        if filt and not any(filt in f for f in st): continue
        total+=1
        self_c[st[0]]+=1
        for f in set(st): incl[f]+=1
    print(f"samples {total}")
    print("-- top self frames")
    for f,c in self_c.most_common(top): print(f"{100*c/total:6.2f}% {f}")
    print("-- inclusive, dev.flushless and pgjdbc entry points")
    for f,c in incl.most_common(400):
        if 'dev.flushless' in f or f.startswith('org.postgresql.jdbc.Pg') or 'AsSentCost' in f:
            print(f"{100*c/total:6.2f}% {f}")
main(sys.argv[1], int(sys.argv[2]) if len(sys.argv)>2 else 40, sys.argv[3] if len(sys.argv)>3 else None)
