#!/usr/bin/env bash
# The dice value reader and crop classifier trained at once on one GPU, crops cut by many processes: the
# run that made the shipped value reader (models/dice_val.onnx, 2026-11-26, one H200 and 16 cores, 6.5 min:
# 12118 steps of 512). The classifier it trains alongside was not shipped (docs/dice.md).
#
#   bash tools/train_dice_gpu.sh prepare        # here: the train-split photos and simulator patches into
#                                               # .dicegpu/ (git-ignored; ~40 MB, small enough to carry)
#   [SECOND=val] OUT=/some/dir bash tools/train_dice_gpu.sh [MINUTES=6.5]   # there, from the repo root: python3 with
#                                               # torch (CUDA), numpy, opencv, onnx; writes OUT/*.onnx, *.pt, logs
#
#   MODE=net OUT=/some/dir bash tools/train_dice_gpu.sh [MINUTES]    # instead: two detectors (train_dice_net.py)
#                                               # side by side, the shipped widths, seeds 0 and 1, batch 128 and 256
#
#   CACHE=/tmp/cls_cache.npz bash tools/train_dice_gpu.sh prepare-cls   # here: the train-split photos and a
#                                               # classifier cache's simulator patches and board finds (built
#                                               # with train_dice_cls.py --boards), JPEG-packed: ~34 MB in all
#   MODE=clsft OUT=/some/dir bash tools/train_dice_gpu.sh [MINUTES]   # there: fine-tunes of the shipped
#                                               # classifier side by side, RUNS="name:lr:minutes:seed ..."
#
#   bash tools/train_dice_gpu.sh prepare-val    # here: the train-split photos only (~25 MB)
#   MODE=valft OUT=/some/dir bash tools/train_dice_gpu.sh [MINUTES]   # there: fine-tunes of the shipped value
#                                               # reader side by side, RUNS="name:lr:minutes:seed:glint ..."
#                                               # (glint: the share of crops given a lamp's highlight)
#
# Then, here: python tools/dice_value_compare.py OUT/dice_val*.onnx --sets ../shared/data/dice/byler:train ... (docs/dice.md);
# since the networks learn from tools/dice_label_fixes.csv, score their train splits as corrected:
# tablecompanion dice eval ../shared/data/dice/byler --split train --value-reader OUT/dice_val_a.onnx --label-fixes tools/dice_label_fixes.csv
# Beside the runs it writes OUT/dice_val_soup.onnx (dice_cls_soup.onnx): their weights averaged with the
# network they started from (tools/soup_onnx.py; the shipped value reader is such a mean), one more candidate.
# With FIT=train-fit every mode leaves out each train split's choose slice (docs/dice.md, "What fails": the
# train splits no longer tell candidates apart); then choose with dice eval --split train-choose.
# Local dry run: OUT=/tmp/dgout DEVICE=cpu WORKERS=1 PY=.venv/bin/python bash tools/train_dice_gpu.sh 0.5
set -u
D=.dicegpu
FIT=${FIT:-train}  # FIT=train-fit: train on all but the 15 % held back to choose on (dice eval --split train-choose)
copy_train_photos() {
    mkdir -p $D
    $PY - <<'PY'
import csv, shutil
from pathlib import Path
for name in ("byler", "matteo"):  # only the train splits travel: the held-out photos are for reporting
    src, dst = Path("../shared/data/dice") / name, Path(".dicegpu/dice") / name
    rows = list(csv.DictReader((src / "labels.csv").open(newline="")))
    keep = [r for r in rows if "split=train" in r.get("notes", "").lower()]
    for r in keep:
        (dst / r["file"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / r["file"], dst / r["file"])
    with (dst / "labels.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(keep)
    print(name, len(keep), "train photos")
PY
    grep -qx '/.dicegpu/' .git/info/exclude 2>/dev/null || echo '/.dicegpu/' >> .git/info/exclude
}
if [ "${1:-}" = prepare-cls ]; then
    PY=${PY:-.venv/bin/python}
    : "${CACHE:?set CACHE to a classifier cache (train_dice_cls.py --cache, built with --boards)}"
    copy_train_photos
    # the photo patches are cut again there (the detector in many processes); the simulator's patches and
    # the board finds are rendered scenes, so they travel as they are, JPEG-packed
    CACHE=$CACHE $PY - <<'PY'
import os, sys
import numpy as np
sys.path.insert(0, "tools")
from train_dice_cls import pack_patches
cache = dict(np.load(os.environ["CACHE"]))  # an NpzFile reads an array again at each access
rows = np.flatnonzero(np.isin(cache["kinds"], [4, 6]))
pack_patches(".dicegpu/cls_extra_jpg.npz", cache, rows)
print(len(rows), "simulator patches and board finds:", np.bincount(cache["kinds"][rows]).tolist(),
      os.path.getsize(".dicegpu/cls_extra_jpg.npz") // 1000, "KB")
PY
    exit 0
fi
if [ "${1:-}" = prepare-val ]; then
    PY=${PY:-.venv/bin/python}
    copy_train_photos  # the value reader learns from the photos and drawn dice, both made there
    exit 0
fi
if [ "${1:-}" = prepare ]; then
    PY=${PY:-.venv/bin/python}
    copy_train_photos
    # simulator crops cut once (tools/dice_sim_data.py renders them: ~6 min), kept as patches (a tenth of the bytes)
    [ -f $D/dice_sim.npz ] || $PY tools/dice_sim_data.py --frames 160 --out $D/dice_sim.npz --seed 0
    $PY - <<'PY'
import sys
import numpy as np
sys.path.insert(0, "tools")
from train_dice_cls import sim_patches, load_sim
parts = sim_patches(load_sim(".dicegpu/dice_sim.npz"), np.random.default_rng(0))
np.savez_compressed(".dicegpu/dice_sim_patches.npz", patches=np.stack([p[0] for p in parts]),
                    labels=np.array([p[1] for p in parts], np.int64), sides=np.array([p[2] for p in parts], np.float32),
                    kinds=np.array([p[3] for p in parts], np.int64))
print(len(parts), "simulator patches")
PY
    # the detector trains on whole simulator crops: JPEG-packed (10 MB against 60) so they can be carried too
    [ -f $D/dice_sim_jpg.npz ] || $PY -c "import sys; sys.path.insert(0, 'tools'); from train_dice_net import pack_sim; pack_sim('$D/dice_sim.npz', '$D/dice_sim_jpg.npz')"
    exit 0
fi
M=${1:-6.5}
DEVICE=${DEVICE:-cuda}
WORKERS=${WORKERS:-7}
PY=${PY:-python3}
: "${OUT:?set OUT}"
mkdir -p "$OUT"
nvidia-smi -L || echo "no nvidia-smi"
nproc
export PYTHONPATH=.
$PY -c "import torch, cv2, numpy; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'cv2', cv2.__version__)"
NEED=$D/dice_sim_patches.npz; [ "${MODE:-}" = net ] && NEED=$D/dice_sim_jpg.npz
[ "${MODE:-}" = clsft ] && NEED=$D/cls_extra_jpg.npz
[ "${MODE:-}" = valft ] && NEED=""
for f in $D/dice/byler/labels.csv $D/dice/matteo/labels.csv $NEED; do
    [ -f "$f" ] || { echo "missing $f: run 'bash tools/train_dice_gpu.sh prepare' (MODE=clsft: 'prepare-cls') first"; exit 1; }
done
if [ "${MODE:-}" = net ]; then
    NTRAIN="$D/dice/byler:$FIT $D/dice/matteo:$FIT"
    NCOMMON="--device $DEVICE --workers $WORKERS --threads 1 --minutes $M --sim $D/dice_sim_jpg.npz"
    $PY tools/train_dice_net.py --train $NTRAIN $NCOMMON --seed 0 --batch 128 --lr ${NET_LR:-3e-3} \
        --out "$OUT/dice_net_a.onnx" > "$OUT/net_a.log" 2>&1 &
    A=$!
    $PY tools/train_dice_net.py --train $NTRAIN $NCOMMON --seed 1 --batch 256 --lr ${NET_LR_B:-5e-3} \
        --out "$OUT/dice_net_b.onnx" > "$OUT/net_b.log" 2>&1 &
    B=$!
    wait $A; RA=$?
    wait $B; RB=$?
    for n in a b; do echo "== net_$n"; grep -v -e Warning -e "torch.onnx.export(" "$OUT/net_$n.log" | tail -n 8; done
    ls -l "$OUT"
    exit $(( RA || RB ))
fi
# Fine-tunes side by side (MODE=clsft, MODE=valft): one cache, $RUNS each in its own process with its share of
# the cores for cutting crops; the ONNX files come back, the logs in one tarball.
start_runs() {  # $1: the mode, naming the default log folder and cache
    TRAIN="$D/dice/byler:$FIT $D/dice/matteo:$FIT"
    LOGS=${LOGS:-/tmp/$1_logs}; mkdir -p $LOGS
    CACHEF=${CACHEF:-/tmp/$1_cache.npz}
    N=$(echo $RUNS | wc -w)
    CW=${CW:-$(( ($(nproc) - N) / N ))}; [ $CW -ge 1 ] || CW=1
    PIDS=""
    t0=$(date +%s)
}
finish_runs() {  # $1: the mode, naming the tarball of logs; $2: the runs' ONNX prefix; exits with 1 if any run failed
    RC=0
    for p in $PIDS; do wait $p || RC=1; done
    for r in $RUNS; do
        name=${r%%:*}; echo "== $r"; grep -v -e Warning -e "torch.onnx.export(" $LOGS/$name.log | tail -n 4
    done
    # one more candidate (forty-fifth session: the shipped value reader is one): half the network the runs
    # started from, half the mean of the runs, their weights averaged (tools/soup_onnx.py); SOUP=0: none
    PARTS=""; K=0
    for r in $RUNS; do f="$OUT/$2_${r%%:*}.onnx"; [ -f "$f" ] && { PARTS="$PARTS 1:$f"; K=$((K + 1)); }; done
    if [ "${SOUP:-1}" != 0 ] && [ $K -gt 0 ]; then
        $PY tools/soup_onnx.py "$OUT/$2_soup.onnx" $K:$INIT $PARTS || RC=1
    fi
    rm -f "$OUT"/*.pt  # the ONNX is what ships and what --init takes; at most 8 files come back
    tar -czf "$OUT/$1_logs.tgz" -C $LOGS $(cd $LOGS && ls *.log)
    echo "total $(( $(date +%s) - t0 )) s"; ls -l "$OUT"
    exit $RC
}
if [ "${MODE:-}" = valft ]; then
    # The forty-third session's preparation: the shipped value reader fine-tuned further, side by side from one
    # cache, some runs with lamp highlights on the dice (byler test's black 4 with a glint between its pips is
    # read 5); which (if any) ships is chosen here on the train splits (tools/dice_value_compare.py, then
    # `dice eval --value-reader ... --label-fixes tools/dice_label_fixes.csv` on the train splits, the rule
    # fixed before the held-out splits are read). The forty-fourth session made two smaller such runs on a CPU.
    INIT=${INIT:-tablecompanion/vision/models/dice_val.onnx}
    RUNS=${RUNS:-"a:1e-3:$M:21:0 b:1e-3:$M:22:0.2 c:3e-4:$M:23:0.2 d:3e-4:$M:24:0.4"}
    start_runs valft
    $PY tools/train_dice_val.py --train $TRAIN --cache $CACHEF --workers $WORKERS --cache-only \
        > $LOGS/cache.log 2>&1 || { cat $LOGS/cache.log; exit 1; }
    grep -v -e Warning $LOGS/cache.log
    echo "cache: $(( $(date +%s) - t0 )) s; $N runs of $CW crop workers each"
    for r in $RUNS; do
        IFS=: read name lr mins seed glint <<< "$r"
        $PY tools/train_dice_val.py --train $TRAIN --cache $CACHEF --init $INIT --widths 48,96,192 --hidden 192 \
            --lr $lr --minutes $mins --seed $seed --glint ${glint:-0} --batch ${BATCH:-512} --device $DEVICE \
            --workers $CW --threads 1 --out "$OUT/dice_val_$name.onnx" > $LOGS/$name.log 2>&1 &
        PIDS="$PIDS $!"
    done
    finish_runs valft dice_val
fi
if [ "${MODE:-}" = clsft ]; then
    # The forty-second session's run: the shipped classifier fine-tuned further, several learning rates and
    # lengths side by side, each from the same cache; which (if any) ships is chosen here on the train splits.
    INIT=${INIT:-tablecompanion/vision/models/dice_cls.onnx}
    RUNS=${RUNS:-"a:1e-3:$M:11 b:5e-4:$M:12 c:3e-4:$M:13 d:1e-3:$(awk "BEGIN{print $M/2}"):14"}
    start_runs clsft
    # the cache: photo patches cut here by the detector in WORKERS processes, drawn dice drawn here, and the
    # carried simulator patches and board finds
    $PY tools/train_dice_cls.py --train $TRAIN --sim $D/cls_extra_jpg.npz --cache $CACHEF --workers $WORKERS \
        --cache-only > $LOGS/cache.log 2>&1 || { cat $LOGS/cache.log; exit 1; }
    grep -v -e Warning $LOGS/cache.log
    echo "cache: $(( $(date +%s) - t0 )) s; $N runs of $CW crop workers each"
    for r in $RUNS; do
        IFS=: read name lr mins seed <<< "$r"
        $PY tools/train_dice_cls.py --train $TRAIN --cache $CACHEF --init $INIT --lr $lr --minutes $mins \
            --seed $seed --oversize ${OVERSIZE:-0.12} --batch ${BATCH:-192} --device $DEVICE --workers $CW \
            --threads 1 --out "$OUT/dice_cls_$name.onnx" > $LOGS/$name.log 2>&1 &
        PIDS="$PIDS $!"
    done
    finish_runs clsft dice_cls
fi
# The patch caches (~1.1 GB) are cut there from the carried photos, in WORKERS processes: about half a minute.
TRAIN="$D/dice/byler:$FIT $D/dice/matteo:$FIT"
COMMON="--device $DEVICE --workers $WORKERS --threads 1 --minutes $M --seed 0"
# Batch 512: one process feeds the GPU, and each step costs it launches and a copy whatever the batch; the
# learning rates go up about as sqrt(batch). The reader is wider than the CPU-trained one (48,96,192 / 192).
$PY tools/train_dice_val.py --train $TRAIN $COMMON --batch ${BATCH:-512} --lr ${VAL_LR:-3e-3} \
    --widths 48,96,192 --hidden 192 --out "$OUT/dice_val.onnx" > "$OUT/val.log" 2>&1 &
VAL=$!
if [ "${SECOND:-cls}" = val ]; then
    # SECOND=val: a second value reader beside the first instead of the classifier, wider and on another
    # seed (2026-11-27: the classifier trained here never shipped; the value reader did)
    $PY tools/train_dice_val.py --train $TRAIN ${COMMON/--seed 0/--seed 1} --batch ${BATCH:-512} \
        --lr ${VAL_LR:-3e-3} --widths 64,128,256 --hidden 256 --out "$OUT/dice_val_wide.onnx" > "$OUT/val_wide.log" 2>&1 &
else
    $PY tools/train_dice_cls.py --train $TRAIN --sim $D/dice_sim_patches.npz $COMMON --batch ${BATCH:-512} \
        --lr ${CLS_LR:-4e-3} --oversize 0.1 --out "$OUT/dice_cls.onnx" > "$OUT/cls.log" 2>&1 &
fi
CLS=$!
wait $VAL; RV=$?
wait $CLS; RC=$?
echo "== val (exit $RV)"; grep -v -e Warning -e "torch.onnx.export(" "$OUT/val.log" | tail -n 12
LOG2=cls; [ "${SECOND:-cls}" = val ] && LOG2=val_wide
echo "== $LOG2 (exit $RC)"; grep -v -e Warning -e "torch.onnx.export(" "$OUT/$LOG2.log" | tail -n 12
ls -l "$OUT"
exit $(( RV || RC ))
