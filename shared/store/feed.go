package store

import (
	"context"
	"time"
)

// ChangeKind is what a write did to an item, as DynamoDB Streams names it.
type ChangeKind string

const (
	ChangeInsert ChangeKind = "INSERT" // the item did not exist (expired but unreaped counts as existing, as in DynamoDB)
	ChangeModify ChangeKind = "MODIFY" // the item existed and was written again
	ChangeRemove ChangeKind = "REMOVE" // the item was deleted
)

// Change is one committed write to an item of a streamed table.
type Change struct {
	Seq  uint64 // position in the table's feed: strictly increasing in commit order, never reused
	Kind ChangeKind
	// Item is the item as the write left it (its new image); for
	// ChangeRemove only Item.Key is set.
	Item Item
	At   time.Time // commit time
}

// ChangeFeed is the embedded store's change feed: the local stand-in for a
// DynamoDB stream. It is optional: the runner of stream consumers finds it on
// a Store by type assertion (the DynamoDB adapter has none; on AWS the event
// source mapping reads the real stream). Every committed write to an item of
// a streamed table is appended in the write's own transaction, so the feed
// holds exactly what was committed, in commit order, durably.
type ChangeFeed interface {
	// Changes returns up to limit changes of table with Seq > after, oldest
	// first (fewer, or none, when there are no more). A consumer passes its
	// checkpoint as after; records already trimmed are skipped.
	Changes(ctx context.Context, table string, after uint64, limit int) ([]Change, error)
	// Checkpoint is consumer's durable position in table's feed: the Seq of
	// the last change it finished (0 before its first).
	Checkpoint(ctx context.Context, table, consumer string) (uint64, error)
	// SetCheckpoint records that consumer finished every change of table up
	// to seq, and trims the changes every consumer has passed.
	SetCheckpoint(ctx context.Context, table, consumer string, seq uint64) error
	// Changed returns a channel closed at the next commit that appends to
	// table's feed. Take it before reading, then wait on it when the read
	// found nothing: no commit between the two is missed.
	Changed(table string) <-chan struct{}
}

// ChangeHandler consumes a batch of a streamed table's changes in commit
// order (the DynamoDB stream on AWS, the change feed locally: the app layer
// adapts either) and returns how many leading changes it finished; the
// source hands the first unfinished one, and what follows, over again.
type ChangeHandler func(ctx context.Context, changes []Change) (done int)
