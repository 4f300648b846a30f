package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paygate/paygate/infra/runtimeapi"
)

// maxBinaryBytes is the size target of a deployed function binary.
const maxBinaryBytes = 20 << 20

// binarySizes builds every function as `sam build` ships it (linux/arm64,
// stripped) and returns the size of each, in template order, and the
// largest function (the first of equals), whose cold start is measured.
func binarySizes(ctx context.Context, root string, fns []function) ([]row, function, error) {
	var largest function
	var largestSize int64 = -1
	dir, err := os.MkdirTemp("", "paygate-bench-size-")
	if err != nil {
		return nil, largest, err
	}
	defer os.RemoveAll(dir)
	var rows []row
	for _, fn := range fns {
		out := filepath.Join(dir, fn.LogicalID)
		opt := runtimeapi.BuildOptions{GOOS: "linux", GOARCH: "arm64", Release: true}
		if err := runtimeapi.Build(ctx, root, "./"+fn.CodeURI, out, opt); err != nil {
			return nil, largest, err
		}
		st, err := os.Stat(out)
		if err != nil {
			return nil, largest, err
		}
		if st.Size() > largestSize {
			largest, largestSize = fn, st.Size()
		}
		rows = append(rows, row{
			name:   "binary size " + fn.LogicalID + " (linux/arm64, -s -w)",
			value:  fmt.Sprintf("%.1f MB", float64(st.Size())/(1<<20)),
			target: "<= 20 MB",
			ok:     verdict(st.Size() <= maxBinaryBytes),
		})
	}
	return rows, largest, nil
}
