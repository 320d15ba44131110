package schema7

// DemoTick builds the synthetic rows the tests use (testgen/cdtdemo.Tick);
// demo_hook_test.go sets it, since testgen/cdtdemo imports this package.
var DemoTick func(t int64, seed uint32) TickRecord
