package runtimeapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildOptions choose how a function binary is built.
type BuildOptions struct {
	GOOS, GOARCH string // "" means the host's
	// Release builds as for deployment: -trimpath -ldflags "-s -w".
	Release bool
}

// Build compiles the package pkg (e.g. "./functions/health") of the module
// at moduleDir into out, as SAM's go1.x build does: CGO_ENABLED=0 and the
// lambda.norpc tag (provided.al2023 needs no RPC shim).
func Build(ctx context.Context, moduleDir, pkg, out string, opt BuildOptions) error {
	args := []string{"build", "-tags", "lambda.norpc", "-o", out}
	if opt.Release {
		args = append(args, "-trimpath", "-ldflags", "-s -w")
	}
	args = append(args, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if opt.GOOS != "" {
		cmd.Env = append(cmd.Env, "GOOS="+opt.GOOS)
	}
	if opt.GOARCH != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+opt.GOARCH)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, stderr.String())
	}
	return nil
}

// ModuleRoot walks up from dir to the directory holding go.mod.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("runtimeapi: no go.mod above the working directory")
		}
		dir = parent
	}
}
