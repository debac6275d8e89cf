set -uo pipefail
W=/tmp/ts2; mkdir -p $W; PACK=$OUT/tp_c2.tgz
packit() { tar -C $W -czf $PACK.tmp . && mv $PACK.tmp $PACK; }
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version --format=csv | tee $W/gpu.txt
(meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >$W/setup.log 2>&1 && ninja -C build-gpu >$W/build.log 2>&1) || { tail -30 $W/build.log; exit 1; }
echo "built $(date -u +%T)"
timeout 120 build-gpu/tests/test_gpu --filter 'scratchpad/*' >$W/test_scratchpad.txt 2>&1; echo "scratchpad rc $?"; tail -2 $W/test_scratchpad.txt
timeout 90 build-gpu/tests/test_gpu --filter 'sgemm/*' >$W/test_sgemm.txt 2>&1; echo "sgemm rc $?"; tail -1 $W/test_sgemm.txt
packit
TUNE_STEPS="geometry order" timeout 240 bash tests/scripts/transpose_tune.sh build-gpu/smembench $W/transpose >$W/transpose.log 2>&1; echo "tune rc $?"
cat $W/transpose/steps.txt; grep -E "best|95|swizzled.*256" $W/transpose/summary.txt | tail -30
packit
echo "done $(date -u +%T)"
