// Package lostanswer wraps a store so that chosen single-item writes meet
// the ambiguous outcome: the write commits, its answer is lost, and the
// AWS SDK sends it again, so the caller gets the verdict of the second
// run on top of the first (infra/chaos/faults injects the same on the
// wire; this reproduces it on any adapter, in a unit test). A transaction
// is not wrapped: DynamoDB answers a retried TransactWriteItems by its
// ClientRequestToken as the first commit.
package lostanswer

import (
	"context"
	"sync"

	"github.com/paygate/paygate/shared/store"
)

// Store runs the writes Match picks twice.
type Store struct {
	store.Store
	// Match picks the single op whose answer is lost.
	Match func(op store.Op) bool

	mu   sync.Mutex
	hits int
}

// Wrap wraps st; match picks the ops.
func Wrap(st store.Store, match func(op store.Op) bool) *Store {
	return &Store{Store: st, Match: match}
}

// Write runs ops; a matched single op runs twice and answers the second
// run's verdict.
func (s *Store) Write(ctx context.Context, ops ...store.Op) error {
	if len(ops) != 1 || !s.Match(ops[0]) {
		return s.Store.Write(ctx, ops...)
	}
	if err := s.Store.Write(ctx, ops...); err != nil {
		return err
	}
	s.mu.Lock()
	s.hits++
	s.mu.Unlock()
	return s.Store.Write(ctx, ops...)
}

// Hits is how many writes lost their answer.
func (s *Store) Hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}
