package atf

// benchMmap is the option set of the benchmarks' "mmap" variants (a separate
// file so the benchmarks can run against a tree without WithMmap, where it is
// nil, for before/after comparisons with ../shared/bench/ab.sh).
var benchMmap = []ReaderOption{WithMmap(true)}
