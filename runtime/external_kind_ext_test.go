package runtime_test

import "github.com/pmacs-go/pmacs-go/runtime"

// kindExternal stands in for a protocol client's request kind (the runtime
// registers none) in the tests outside the package.
var kindExternal = runtime.RegisterKind(runtime.KindSpec{Name: "external"})
