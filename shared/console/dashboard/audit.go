package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// AuditEntry is one change made in the dashboard: who, what, when and from
// which address. Entries are never edited or deleted.
type AuditEntry struct {
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	Email   string    `json:"email"`
	Role    Role      `json:"role"`
	Action  string    `json:"action"`           // payment.refund, api_key.roll, ...
	Target  string    `json:"target,omitempty"` // the record's id
	Detail  string    `json:"detail,omitempty"`
	Address string    `json:"address"`
}

// Key layout (accounts table):
//
//	dashaudit#<account> / <entry id (UUID v7, time-ordered)>
func auditPK(accountID string) string { return "dashaudit#" + accountID }

// auditOp is the write of a new entry (its id and time filled in).
func (s *Service) auditOp(accountID string, e AuditEntry) (store.Op, AuditEntry, error) {
	e.ID = s.auditID()
	if e.At.IsZero() {
		e.At = s.clock().UTC()
	}
	data, err := json.Marshal(e)
	if err != nil {
		return store.Op{}, e, apierr.Wrap("dashboard.Audit", apierr.Internal, err)
	}
	k := store.Key{Table: store.TableAccounts, PK: auditPK(accountID), SK: e.ID}
	return store.Put(store.Item{Key: k, Data: data}, store.IfAbsent), e, nil
}

// ErrAuditNotWritten is the error of a change refused because its audit
// entry could not be written with it: the change was not made.
var ErrAuditNotWritten = errors.New("dashboard: the audit entry could not be written; the change was not made")

// Audited runs change, whose entry e rides on the first write change
// commits (store.WithExtras): the change and its entry commit in one
// transaction, or neither does. A change that fails before writing leaves
// no entry; an entry that cannot be written (its condition fails) stops
// the change (ErrAuditNotWritten, an Internal apierr). A change that
// succeeds without writing to the store (a resend only queues messages)
// gets its entry written alone right after; a failure there is returned
// (Internal), the change standing. change may return the record's id when
// it learns it only by making it (a new key, endpoint or link): the entry,
// committed without it, is given it in a second write (a failure there is
// logged; the entry stands, its detail naming what was made).
func (s *Service) Audited(ctx context.Context, accountID string, e AuditEntry, change func(ctx context.Context) (target string, err error)) error {
	op, e, err := s.auditOp(accountID, e)
	if err != nil {
		return err
	}
	xctx, x := store.WithExtras(ctx, op)
	target, err := change(xctx)
	switch {
	case x.Failed():
		return apierr.Wrap("dashboard.Audited", apierr.Internal, ErrAuditNotWritten)
	case err != nil:
		return err
	case !x.Committed():
		if werr := s.st.Write(ctx, op); werr != nil {
			return apierr.Wrap("dashboard.Audited", apierr.Internal, werr)
		}
	}
	if target != "" && target != e.Target {
		e.Target = target
		data, werr := json.Marshal(e)
		if werr == nil {
			werr = s.st.Write(ctx, store.Put(store.Item{Key: op.Item.Key, Data: data}, store.IfVersion(1)))
		}
		if werr != nil {
			s.log.Error("dashboard audit entry's record id not added", "action", e.Action, "error", werr.Error())
		}
	}
	return nil
}

// AuditLog is a page of the account's log, newest first. Errors: Invalid
// (cursor), Internal.
func (s *Service) AuditLog(ctx context.Context, accountID string, limit int, cursor string) ([]AuditEntry, string, error) {
	page, err := s.st.Query(ctx, store.Query{Table: store.TableAccounts, PK: auditPK(accountID), Desc: true, Limit: limit, Cursor: cursor})
	if errors.Is(err, store.ErrInvalid) {
		return nil, "", apierr.Invalidf("cursor", "the cursor is not one this list gave")
	}
	if err != nil {
		return nil, "", apierr.Wrap("dashboard.AuditLog", apierr.Internal, err)
	}
	out := make([]AuditEntry, 0, len(page.Items))
	for _, it := range page.Items {
		var e AuditEntry
		if err := json.Unmarshal(it.Data, &e); err != nil {
			return nil, "", apierr.Wrap("dashboard.AuditLog", apierr.Internal, err)
		}
		out = append(out, e)
	}
	return out, page.Next, nil
}
