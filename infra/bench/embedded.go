package main

import (
	"os"
	"path/filepath"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// embeddedDeps opens a fresh embedded store and queue in a temporary
// directory, as make run serves them, and the cleanup that closes and
// removes them.
func embeddedDeps(prefix string) (*app.Deps, func(), error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, nil, err
	}
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	q, err := boltqueue.Open(filepath.Join(dir, "queue.db"), nil)
	if err != nil {
		st.Close()
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return app.WithStore(st, q, nil, nil), func() { q.Close(); st.Close(); os.RemoveAll(dir) }, nil
}
