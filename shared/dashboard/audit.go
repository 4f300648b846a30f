package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/ids"
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

// Audit writes one entry to the account's log. Sign-ins and sign-outs are
// written too (a sign-in that failed has no account to write to).
func (s *Service) Audit(ctx context.Context, accountID string, e AuditEntry) error {
	e.ID = ids.New()
	if e.At.IsZero() {
		e.At = s.clock().UTC()
	}
	data, err := json.Marshal(e)
	if err != nil {
		return apierr.Wrap("dashboard.Audit", apierr.Internal, err)
	}
	k := store.Key{Table: store.TableAccounts, PK: auditPK(accountID), SK: e.ID}
	if err := s.st.Write(ctx, store.Put(store.Item{Key: k, Data: data}, store.IfAbsent)); err != nil {
		return apierr.Wrap("dashboard.Audit", apierr.Internal, err)
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
