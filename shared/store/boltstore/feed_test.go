package boltstore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func openAt(t *testing.T, path string, clock store.Clock) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(path, clock)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func evKey(pk, sk string) store.Key { return store.Key{Table: store.TableEvents, PK: pk, SK: sk} }

func putEvent(t *testing.T, s store.Store, pk, sk, data string) {
	t.Helper()
	require.NoError(t, s.Write(context.Background(), store.Put(store.Item{Key: evKey(pk, sk), Data: []byte(data)}, store.Always)))
}

func allChanges(t *testing.T, f store.ChangeFeed, after uint64) []store.Change {
	t.Helper()
	var out []store.Change
	for {
		page, err := f.Changes(context.Background(), store.TableEvents, after, 7)
		require.NoError(t, err)
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}

// Every committed write of a streamed table is one record, with the item as
// written: INSERT, then MODIFY, adds included, REMOVE for a real delete;
// other tables, checks and deletes of nothing add none.
func TestFeedRecordsEachCommittedWrite(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "store.db"), nil)
	exp := time.Unix(time.Now().Add(time.Hour).Unix(), 0).UTC()
	k := evKey("evt#acct", "evt_1")
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: k, Data: []byte{0, 1, 0xff}, N: 3, ExpiresAt: exp}, store.IfAbsent)))
	require.NoError(t, s.Write(ctx, store.Add(k, 4, true, store.Always)))
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: store.Key{Table: store.TableLedger, PK: "l", SK: "l"}}, store.Always)))
	require.NoError(t, s.Write(ctx, store.Delete(evKey("evt#acct", "absent"), store.Always)))
	require.NoError(t, s.Write(ctx, store.Check(k, store.IfExists), store.Put(store.Item{Key: evKey("evt#acct", "evt_2")}, store.IfAbsent)))
	require.NoError(t, s.Write(ctx, store.Delete(k, store.Always)))

	got := allChanges(t, s, 0)
	require.Len(t, got, 4)
	for i, c := range got {
		assert.Equal(t, uint64(i+1), c.Seq)
		assert.False(t, c.At.IsZero())
	}
	assert.Equal(t, store.ChangeInsert, got[0].Kind)
	assert.Equal(t, store.Item{Key: k, Data: []byte{0, 1, 0xff}, N: 3, Version: 1, ExpiresAt: exp}, got[0].Item)
	assert.Equal(t, store.ChangeModify, got[1].Kind)
	assert.Equal(t, store.Item{Key: k, Data: []byte{0, 1, 0xff}, N: 7, Version: 2, ExpiresAt: exp}, got[1].Item)
	assert.Equal(t, store.ChangeInsert, got[2].Kind)
	assert.Equal(t, store.Item{Key: evKey("evt#acct", "evt_2"), Version: 1}, got[2].Item)
	assert.Equal(t, store.ChangeRemove, got[3].Kind)
	assert.Equal(t, store.Item{Key: k}, got[3].Item)

	_, err := s.Changes(ctx, store.TableLedger, 0, 10)
	assert.ErrorIs(t, err, store.ErrInvalid, "only streamed tables have a feed")
}

// A write that fails adds nothing, not even a sequence number: the next
// committed record follows the last one.
func TestFeedFailedWriteAddsNothing(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "store.db"), nil)
	putEvent(t, s, "p", "a", "1")
	// A transaction whose second op fails its condition.
	err := s.Write(ctx,
		store.Put(store.Item{Key: evKey("p", "b"), Data: []byte("2")}, store.IfAbsent),
		store.Put(store.Item{Key: evKey("p", "a")}, store.IfAbsent))
	_, failed := store.IsConditionFailed(err)
	require.True(t, failed, "%v", err)
	// One refused before it starts (too large).
	err = s.Write(ctx, store.Put(store.Item{Key: evKey("p", "c"), Data: make([]byte, store.MaxItemSize)}, store.Always))
	require.ErrorIs(t, err, store.ErrTooLarge)
	// A balance that would go negative, beside an event.
	err = s.Write(ctx,
		store.Put(store.Item{Key: evKey("p", "d")}, store.Always),
		store.Add(store.Key{Table: store.TableLedger, PK: "b", SK: "b"}, -1, true, store.Always))
	_, failed = store.IsConditionFailed(err)
	require.True(t, failed, "%v", err)

	putEvent(t, s, "p", "e", "5")
	got := allChanges(t, s, 0)
	require.Len(t, got, 2)
	assert.Equal(t, []uint64{1, 2}, []uint64{got[0].Seq, got[1].Seq})
	assert.Equal(t, "a", got[0].Item.SK)
	assert.Equal(t, "e", got[1].Item.SK)
}

// Many writers at once: the feed's order is the commit order. Each writer
// owns one item and writes it again and again, so its versions must come
// out 1, 2, 3... ; a reader tailing the feed meanwhile sees strictly
// increasing sequences with no gap; every write that returned is there.
func TestFeedOrderUnderConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "store.db"), nil)
	const writers, writes = 16, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			k := evKey("p", fmt.Sprintf("w%02d", w))
			for i := range writes {
				ops := []store.Op{store.Put(store.Item{Key: k, Data: []byte(strconv.Itoa(i))}, store.Always)}
				if i%3 == 0 { // some in a transaction with a table that is not streamed
					ops = append(ops, store.Add(store.Key{Table: store.TableLedger, PK: "bal", SK: k.SK}, 1, false, store.Always))
				}
				assert.NoError(t, s.Write(ctx, ops...))
			}
		})
	}
	// Tail while writing, waiting on Changed rather than polling.
	var tailed []store.Change
	deadline := time.After(30 * time.Second)
	for len(tailed) < writers*writes {
		ch := s.Changed(store.TableEvents)
		var after uint64
		if len(tailed) > 0 {
			after = tailed[len(tailed)-1].Seq
		}
		page, err := s.Changes(ctx, store.TableEvents, after, 50)
		require.NoError(t, err)
		if len(page) == 0 {
			select {
			case <-ch:
			case <-deadline:
				t.Fatalf("tailed %d of %d records", len(tailed), writers*writes)
			}
		}
		tailed = append(tailed, page...)
	}
	wg.Wait()
	require.Len(t, allChanges(t, s, 0), writers*writes)
	next := map[string]int64{}
	for i, c := range tailed {
		require.Equal(t, uint64(i+1), c.Seq, "no gap, no reordering")
		next[c.Item.SK]++
		require.Equal(t, next[c.Item.SK], c.Item.Version, "%s out of commit order", c.Item.SK)
		require.Equal(t, strconv.Itoa(int(c.Item.Version-1)), string(c.Item.Data))
	}
	require.Len(t, next, writers)
}

// Checkpoints are per consumer and durable; records and checkpoints survive
// a restart and the sequence goes on after it.
func TestFeedRestartKeepsUnreadRecordsAndCheckpoint(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	for i := range 5 {
		putEvent(t, s, "p", fmt.Sprint(i), "x")
	}
	require.NoError(t, s.SetCheckpoint(ctx, store.TableEvents, "Publisher", 2))
	require.NoError(t, s.Close())

	s = openAt(t, path, nil)
	cp, err := s.Checkpoint(ctx, store.TableEvents, "Publisher")
	require.NoError(t, err)
	require.Equal(t, uint64(2), cp)
	cp, err = s.Checkpoint(ctx, store.TableEvents, "Other")
	require.NoError(t, err)
	require.Zero(t, cp)
	got := allChanges(t, s, cp)
	require.Len(t, got, 3)
	assert.Equal(t, uint64(3), got[0].Seq)
	putEvent(t, s, "p", "after", "x")
	got = allChanges(t, s, 5)
	require.Len(t, got, 1)
	assert.Equal(t, uint64(6), got[0].Seq, "the sequence goes on after a restart")

	// A checkpoint never goes back, nor past the last record.
	require.ErrorIs(t, s.SetCheckpoint(ctx, store.TableEvents, "Publisher", 1), store.ErrInvalid)
	require.ErrorIs(t, s.SetCheckpoint(ctx, store.TableEvents, "Publisher", 7), store.ErrInvalid)
	require.ErrorIs(t, s.SetCheckpoint(ctx, store.TableLedger, "Publisher", 1), store.ErrInvalid)
	require.ErrorIs(t, s.SetCheckpoint(ctx, store.TableEvents, "", 1), store.ErrInvalid)
}

// Records every consumer has passed are trimmed; unread ones are kept for
// FeedRetention, then trimmed as writes go on.
func TestFeedTrimming(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := openAt(t, filepath.Join(t.TempDir(), "store.db"), clock)
	for i := range 6 {
		putEvent(t, s, "p", fmt.Sprint(i), "x")
	}
	require.NoError(t, s.SetCheckpoint(ctx, store.TableEvents, "B", 2))
	require.NoError(t, s.SetCheckpoint(ctx, store.TableEvents, "A", 4))
	got := allChanges(t, s, 0)
	require.Len(t, got, 4, "B has passed 1 and 2, A more")
	assert.Equal(t, uint64(3), got[0].Seq)
	require.NoError(t, s.SetCheckpoint(ctx, store.TableEvents, "B", 5))
	got = allChanges(t, s, 0)
	require.Len(t, got, 2, "both have passed 4")
	assert.Equal(t, uint64(5), got[0].Seq)

	// Past retention, unread records go as new ones come (a few per write).
	mu.Lock()
	now = now.Add(boltstore.FeedRetention + time.Minute)
	mu.Unlock()
	putEvent(t, s, "p", "new", "x")
	got = allChanges(t, s, 0)
	require.Len(t, got, 1)
	assert.Equal(t, uint64(7), got[0].Seq)
}

// Changed is closed by the next commit that appends, and only by one.
func TestFeedChangedWakesOnCommit(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "store.db"), nil)
	ch := s.Changed(store.TableEvents)
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: store.Key{Table: store.TableLedger, PK: "l", SK: "l"}}, store.Always)))
	_ = s.Write(ctx, store.Put(store.Item{Key: evKey("p", "x")}, store.IfAbsent), store.Check(evKey("p", "none"), store.IfExists))
	select {
	case <-ch:
		t.Fatal("woken by a write that appended nothing")
	case <-time.After(20 * time.Millisecond):
	}
	start := time.Now()
	go putEvent(t, s, "p", "y", "x")
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("not woken by a commit")
	}
	t.Logf("woken %s after the write started", time.Since(start))
	assert.Nil(t, s.Changed(store.TableLedger))
}

// crashChildEnv makes the test binary the crashing writer of
// TestFeedSurvivesKill9.
const crashChildEnv = "BOLTSTORE_FEED_CRASH_CHILD"

// A process killed with SIGKILL in the middle of writing loses nothing it
// had committed: every write whose Write returned is in the feed after the
// file is opened again, in order, and the feed goes on from there.
func TestFeedSurvivesKill9(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "store.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFeedSurvivesKill9$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	committed := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() && committed < 200 {
		if n, err := strconv.Atoi(sc.Text()); err == nil {
			committed = n
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.GreaterOrEqual(t, committed, 200)

	s := openAt(t, path, nil)
	got := allChanges(t, s, 0)
	require.GreaterOrEqual(t, len(got), committed, "a committed write was lost")
	for i, c := range got {
		require.Equal(t, uint64(i+1), c.Seq)
		require.Equal(t, fmt.Sprintf("%06d", i+1), c.Item.SK)
	}
	putEvent(t, s, "p", "after", "x")
	last := allChanges(t, s, uint64(len(got)))
	require.Len(t, last, 1)
	require.Equal(t, uint64(len(got)+1), last[0].Seq)
}

// crashChild writes events until killed, printing the count after each
// committed write.
func crashChild(path string) {
	s, err := boltstore.Open(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := 1; ; i++ {
		k := evKey("p", fmt.Sprintf("%06d", i))
		if err := s.Write(context.Background(), store.Put(store.Item{Key: k, Data: []byte("x")}, store.Always)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Fprintln(w, i)
		_ = w.Flush()
	}
}
