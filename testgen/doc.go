// Package testgen is the parent of the module's trace generators: packages
// that write synthetic traces with the module's own writers, shaped like
// real ones and with numbers a test can predict — testgen/tracegen (dial9
// segments, ATF sessions, a fleet of both), testgen/cdtdemo (schema-v7
// CDT rows) and testgen/ctfgen (LTTng-shaped CTF 1.8 trace folders). Tests, benchmarks, the Parquet fleet test and tracecat's sample
// command use them.
//
// They import the codecs, so they live here rather than in internal/, which
// holds only the ground the codecs stand on (wire, leb128, checksum, ferr,
// limits). They are not part of the module's stable API: their output may
// change with the tests that use them.
package testgen
