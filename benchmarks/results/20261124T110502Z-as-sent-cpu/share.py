import sys, collections
exec(open('/tmp/ascpu/agg.py').read().split('def main')[0])
MARK=('WrappedPreparedStatement.applyAll','Engine.sizeReason','FallbackReason.','FlushlessStats.','batch.Bind.','BatchRecorder.','SqlAnalyzer.','TransactionBuffering.transactionState','BatchExecutor.widen','BatchExecutor.narrow','Engine.asSentRowsAhead','FlushlessConfig.')
for path in sys.argv[1:]:
    tot=0; wr=0; cat=collections.Counter()
    for st in stacks(path):
        if not any('Side.op' in f for f in st): continue
        if any('SqlAnalyzer.analyse' in f for f in st): continue  # the one cold parse of the warm-up
        tot+=1
        hit=None
        for f in st:
            for m in MARK:
                if m in f: hit=m
        if hit is None and st[0].startswith('dev.flushless.jdbc'): hit='leaf in dev.flushless.jdbc'
        if hit: wr+=1; cat[hit]+=1
    print(f"{path}: {tot} samples in the operation, {wr} ({100*wr/max(tot,1):.1f}%) in wrapper-only work: " + ", ".join(f"{k.strip('.')} {v}" for k,v in cat.most_common()))
