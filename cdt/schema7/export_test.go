package schema7

// DemoTick builds the synthetic rows the tests use (internal/cdtdemo.Tick);
// demo_hook_test.go sets it, since internal/cdtdemo imports this package.
var DemoTick func(t int64, seed uint32) TickRecord
