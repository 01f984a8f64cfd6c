#!/usr/bin/env bash
# The tilt net's data rendered and the net trained in one run on the GPU machine (its 16 cores render, its
# GPU trains): nothing to carry but the repository.
#
#   OUT=/some/dir bash tools/train_roll_tilt_gpu.sh [GEN_MINUTES=5] [EPOCHS=30]
#
# Renders case-set seeds from 5000 up (a block of 1000 per process), none of the seeds roll eval reports on
# nor the ones rendered here for choosing thresholds (1000-2999: tools/roll_tilt_data.py; the thirty-third
# session's: 3900-4947 and the leaning-heavy 40000-40999; the thirty-fourth's 41000-42999; the thirty-fifth's
# 51000-51999) nor the CPU runs' training seeds (30000-31999, 50000 and 52000-54999). The dice the reader left
# touching something (a checker or the edge: the only ones the net vouches for; the bar's edge, the other
# die) weigh TOUCH_WEIGHT (4) in the loss, the dice every other rule read flat (the only ones the net calls
# cocked) FLAT_WEIGHT (4). Writes
# OUT/roll_tilt.onnx and the logs. Local dry run: OUT=/tmp/rt DEVICE=cpu WORKERS=2 PY=.venv/bin/python TPY=/tmp/tv/bin/python bash tools/train_roll_tilt_gpu.sh 0.2 1
set -u
M=${1:-5}
E=${2:-30}
DEVICE=${DEVICE:-cuda}
WORKERS=${WORKERS:-$(nproc)}
PY=${PY:-python3}
TPY=${TPY:-$PY}
: "${OUT:?set OUT}"
mkdir -p "$OUT/gen"
export PYTHONPATH=.
nvidia-smi -L || echo "no nvidia-smi"
for w in $(seq 0 $((WORKERS - 1))); do
    lo=$((5000 + 1000 * w))
    $PY tools/roll_tilt_data.py --seeds $lo-$((lo + 999)) --per 10 --minutes "$M" --out "$OUT/gen/w$w.npz" \
        > "$OUT/gen/w$w.log" 2>&1 &
done
wait
tail -n 1 "$OUT"/gen/w*.log | grep seed | awk '{n += $3; t += $5} END {print n, "dice,", t, "tilted"}'
$TPY tools/train_roll_tilt.py "$OUT"/gen/w*.npz --device "$DEVICE" --epochs "$E" --batch "${BATCH:-256}" --lr "${LR:-3e-3}" --touch-weight "${TOUCH_WEIGHT:-4}" --flat-weight "${FLAT_WEIGHT:-4}" --out "$OUT/roll_tilt.onnx" 2>&1 \
    | grep -v -e Warning -e "torch.onnx.export(" | tee "$OUT/train.log" | tail -n 8
