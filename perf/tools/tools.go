//go:build tools

// Package tools pins the anchor tools that perf/ scripts build and run
// side by side with etcdlab. It is a separate module so that etcd's root
// module (and its replace directives) never enters etcdlab's build.
package tools

import (
	_ "go.etcd.io/etcd/v3/tools/benchmark"
)
