package schema7_test

import (
	"github.com/tracecodec/tracecodec/cdt/schema7"
	"github.com/tracecodec/tracecodec/testgen/cdtdemo"
)

func init() { schema7.DemoTick = cdtdemo.Tick }
