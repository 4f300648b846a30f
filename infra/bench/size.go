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
// stripped) and returns the size of each, in template order.
func binarySizes(ctx context.Context, root string, fns []function) ([]row, error) {
	dir, err := os.MkdirTemp("", "paygate-bench-size-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var rows []row
	for _, fn := range fns {
		out := filepath.Join(dir, fn.LogicalID)
		opt := runtimeapi.BuildOptions{GOOS: "linux", GOARCH: "arm64", Release: true}
		if err := runtimeapi.Build(ctx, root, "./"+fn.CodeURI, out, opt); err != nil {
			return nil, err
		}
		st, err := os.Stat(out)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{
			name:   "binary size " + fn.LogicalID + " (linux/arm64, -s -w)",
			value:  fmt.Sprintf("%.1f MB", float64(st.Size())/(1<<20)),
			target: "<= 20 MB",
			ok:     verdict(st.Size() <= maxBinaryBytes),
		})
	}
	return rows, nil
}
