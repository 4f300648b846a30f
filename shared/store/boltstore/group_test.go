package boltstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func key(pk, sk string) store.Key { return store.Key{Table: store.TableOrders, PK: pk, SK: sk} }

// TestGroupCommitKeepsEachWritesVerdict: 64 writers at once, half of them
// racing a put-if-absent on one key and half writing keys of their own,
// share transactions (fewer commits than writes) and still get each their
// own verdict: exactly one racer wins, every loser's condition fails with
// the winner's item, and no neighbour of a failed write loses its write.
func TestGroupCommitKeepsEachWritesVerdict(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		const writers = 64
		errs := make([]error, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range writers {
			wg.Go(func() {
				<-start
				if i%2 == 0 {
					errs[i] = s.Write(ctx, store.Put(store.Item{Key: key(fmt.Sprint("race-", round), "one"), Data: []byte(fmt.Sprint(i))}, store.IfAbsent))
				} else {
					errs[i] = s.Write(ctx, store.Put(store.Item{Key: key(fmt.Sprint("own-", round), fmt.Sprint(i)), Data: []byte("x")}, store.IfAbsent),
						store.Add(key(fmt.Sprint("count-", round), "n"), 1, true, store.Always))
				}
			})
		}
		close(start)
		wg.Wait()
		won := -1
		for i, err := range errs {
			if i%2 == 1 {
				require.NoError(t, err, "writer %d wrote only its own keys", i)
				continue
			}
			if err == nil {
				require.Equal(t, -1, won, "two racers won")
				won = i
				continue
			}
			cf, ok := store.IsConditionFailed(err)
			require.True(t, ok, "racer %d: %v", i, err)
			assert.Equal(t, 0, cf.Index)
		}
		require.NotEqual(t, -1, won, "nobody won")
		got, err := s.Get(ctx, key(fmt.Sprint("race-", round), "one"))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(won), string(got.Data))
		n, err := s.Get(ctx, key(fmt.Sprint("count-", round), "n"))
		require.NoError(t, err)
		assert.EqualValues(t, writers/2, n.N, "every neighbour's add applied once")
	}
	st := s.GroupStats()
	t.Logf("%d writes in %d commits", st.Writes, st.Commits)
	assert.Less(t, st.Commits, st.Writes, "concurrent writes share commits")
}

// TestGroupCommitOrder: writes in one batch see their predecessors'
// effects, as if committed one by one: a chain of put-if-version writes,
// each conditioned on the version the previous one wrote, all succeed when
// submitted in order into the same batch.
func TestGroupCommitOrder(t *testing.T) {
	s := open(t)
	k := key("chain", "x")
	reqs := make([]*writeReq, 10)
	for i := range reqs {
		cond := store.IfVersion(int64(i))
		if i == 0 {
			cond = store.IfAbsent
		}
		reqs[i] = &writeReq{ops: []store.Op{store.Put(store.Item{Key: k, Data: []byte(fmt.Sprint(i))}, cond)}, now: time.Now(), done: make(chan error, 1)}
	}
	s.commit(reqs)
	for i, r := range reqs {
		require.NoError(t, <-r.done, "write %d", i)
	}
	got, err := s.Get(context.Background(), k)
	require.NoError(t, err)
	assert.EqualValues(t, 10, got.Version)
	assert.Equal(t, "9", string(got.Data))
}

// TestGroupCommitIsolatesAFailedTransaction: a write whose transaction
// cannot commit at all (here a key the file layout cannot hold, which only
// a bypass of Write's validation can send) fails alone: its neighbours in
// the batch are committed on their own.
func TestGroupCommitIsolatesAFailedTransaction(t *testing.T) {
	s := open(t)
	mk := func(k store.Key) *writeReq {
		return &writeReq{ops: []store.Op{store.Put(store.Item{Key: k, Data: []byte("x")}, store.IfAbsent)}, now: time.Now(), done: make(chan error, 1)}
	}
	good1, bad, good2 := mk(key("a", "1")), mk(key("nul\x00pk", "1")), mk(key("b", "1"))
	s.commit([]*writeReq{good1, bad, good2})
	require.NoError(t, <-good1.done)
	require.NoError(t, <-good2.done)
	assert.True(t, errors.Is(<-bad.done, store.ErrInvalid))
	for _, k := range []store.Key{key("a", "1"), key("b", "1")} {
		_, err := s.Get(context.Background(), k)
		assert.NoError(t, err)
	}
}

// TestCloseAnswersEveryWrite: writes racing Close either commit or fail
// with errClosed; none hangs.
func TestCloseAnswersEveryWrite(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			err := s.Write(context.Background(), store.Put(store.Item{Key: key("close", fmt.Sprint(i)), Data: []byte("x")}, store.Always))
			if err != nil && !errors.Is(err, errClosed) {
				t.Errorf("write %d: %v", i, err)
			}
		})
	}
	require.NoError(t, s.Close())
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a write racing Close never answered")
	}
}

// TestCheckpointsRideTheGroupCommit: consumers moving their checkpoints
// while writers append to a streamed table share the writers' commits, and
// each keeps its own verdict: a checkpoint past the last record is refused
// alone, its neighbours in the batch commit, and every consumer ends where
// it last moved to.
func TestCheckpointsRideTheGroupCommit(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	const writers, consumers, rounds = 16, 8, 20
	evt := func(i, r int) store.Key {
		return store.Key{Table: store.TableEvents, PK: "evt#a", SK: fmt.Sprintf("evt_%02d_%03d", i, r)}
	}
	// Records to move over, first.
	for r := range rounds {
		require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: evt(99, r), Data: []byte("{}")}, store.IfAbsent)))
	}
	before := s.GroupStats()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			for r := range rounds {
				assert.NoError(t, s.Write(ctx, store.Put(store.Item{Key: evt(i, r), Data: []byte("{}")}, store.IfAbsent)))
			}
		})
	}
	for c := range consumers {
		wg.Go(func() {
			<-start
			name := fmt.Sprint("consumer-", c)
			for r := 1; r <= rounds; r++ {
				assert.NoError(t, s.SetCheckpoint(ctx, store.TableEvents, name, uint64(r)))
				err := s.SetCheckpoint(ctx, store.TableEvents, name, 1<<40)
				assert.ErrorIs(t, err, store.ErrInvalid, "past the last record")
				if r > 1 {
					assert.ErrorIs(t, s.SetCheckpoint(ctx, store.TableEvents, name, uint64(r-1)), store.ErrInvalid, "backwards")
				}
			}
		})
	}
	close(start)
	wg.Wait()
	for c := range consumers {
		got, err := s.Checkpoint(ctx, store.TableEvents, fmt.Sprint("consumer-", c))
		require.NoError(t, err)
		assert.EqualValues(t, rounds, got)
	}
	after := s.GroupStats()
	writes, checkpoints := after.Writes-before.Writes, after.Checkpoints-before.Checkpoints
	assert.EqualValues(t, writers*rounds, writes)
	assert.EqualValues(t, consumers*(3*rounds-1), checkpoints)
	t.Logf("%d writes and %d checkpoints in %d commits", writes, checkpoints, after.Commits-before.Commits)
	assert.Less(t, after.Commits-before.Commits, writes+checkpoints, "checkpoints share commits with writes")
	changes, err := s.Changes(ctx, store.TableEvents, 0, 1000)
	require.NoError(t, err)
	assert.Len(t, changes, writers*rounds, "the records every consumer passed are trimmed, the rest kept")
}
