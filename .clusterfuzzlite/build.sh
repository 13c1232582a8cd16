#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: every fuzz target of the formats
# (formats/<f>/fuzz/, as `cmake -P fuzz/fuzz_targets.cmake` lists them) into
# $OUT, each with its seed corpus (fuzz_<t>_seed_corpus.zip: its seed
# directory under corpus/fuzz-seeds and the committed regressions
# corpus/regressions/<t>-*), its dictionary (fuzz_<t>.dict) and its options
# (fuzz_<t>.options), both from its format's fuzz folder.
#
# The engine comes from the environment ($CC, $CFLAGS, $LIB_FUZZING_ENGINE);
# jansson is linked statically because the runner image does not have it.
# To try it outside the image:
#   ATF_SRC=$PWD OUT=/tmp/out WORK=/tmp/work CC=clang \
#   CFLAGS="-fsanitize=address,fuzzer-no-link -g" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
#   .clusterfuzzlite/build.sh
src="${ATF_SRC:-$SRC/atf}"
build="${WORK:-/tmp}/atf-cfl-build"

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$CFLAGS" \
      -DATF_FUZZ=libfuzzer -DATF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DATF_FUZZ_STATIC_JANSSON=ON \
      -DATF_BUILD_TESTS=OFF
cmake --build "$build" -j"$(nproc)" --target atf_fuzz_targets

targets=""
while read -r t seed dir; do
    targets="$targets $t"
    cp "$build/fuzz/fuzz_$t" "$OUT/"
    seeds="$src/corpus/fuzz-seeds/$seed"
    rm -f "$OUT/fuzz_${t}_seed_corpus.zip"
    (cd "$seeds" && zip -q -r "$OUT/fuzz_${t}_seed_corpus.zip" .)
    if compgen -G "$src/corpus/regressions/$t-*" >/dev/null; then
        zip -q -j "$OUT/fuzz_${t}_seed_corpus.zip" "$src/corpus/regressions/$t"-*
    fi
    cp "$src/$dir/dict/$t.dict" "$OUT/fuzz_$t.dict"
    cp "$src/$dir/options/$t.options" "$OUT/fuzz_$t.options"
done < <(cmake -P "$src/fuzz/fuzz_targets.cmake")
[ -n "$targets" ] || { echo "build.sh: no fuzz target (fuzz/fuzz_targets.cmake)" >&2; exit 1; }
echo "built:$targets"
