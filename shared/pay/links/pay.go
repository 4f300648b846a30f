package links

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// The hosted page pays a link through a checkout session it opens for the
// link (OpenSession): the link names its current session, every tab of the
// page shares it, and a new one replaces it once it ends (expired, refused
// three times). The session's payments go through checkout as the
// drop-in's do, with the link read for the request as the caller's hold:
// checkout asks it to admit each attempt before the processor, and to add
// the link's change (active -> paid, its event, counters and indexes) to the
// transaction of the payment that succeeds, conditioned on the version it
// read. So a link is paid at most once, however many tabs pay it at the same
// moment: one transaction commits, the others fail their conditions and
// record nothing, and their pages are told the link is paid.

// Pager is the hosted page's service: payment links and checkout.
type Pager struct {
	links    *Service
	checkout *checkout.Service
}

// NewPager builds the page's service.
func NewPager(links *Service, co *checkout.Service) *Pager {
	return &Pager{links: links, checkout: co}
}

// hold is a link as a page request read it (checkout.LinkHold).
type hold struct {
	svc *Service
	r   *record
}

func (h *hold) LinkID() string { return h.r.ID }

// Admit refuses an attempt the link no longer takes: paid, cancelled,
// expired (409 payment_link_<status>), or on a session that is not the
// link's current one (409 payment_link_session_replaced: the page opens the
// current one).
func (h *hold) Admit(s *checkout.Session, now time.Time) error {
	if h.r.StatusAt(now) != StatusActive {
		return stateConflict(h.r, now)
	}
	if s.ID != h.r.SessionID {
		return apierr.New(CodeSessionReplaced,
			"session %s is no longer payment link %s's session: reload the page", s.ID, h.r.ID)
	}
	return nil
}

// Ops is the link's change for payment p: paid by p when p succeeded
// (authorised, or captured with it), conditioned on the version read.
func (h *hold) Ops(p *payments.Payment, now time.Time) ([]store.Op, error) {
	if !p.Status.Succeeded() {
		return nil, nil
	}
	r := *h.r // the hold keeps the link as read, for Lost
	r.events = nil
	if err := r.move(StatusPaid, now); err != nil {
		return nil, err
	}
	r.TransactionID = p.ID
	return r.writeOps(now)
}

// Lost reads the link again: a link paid (in another tab), cancelled or
// expired meanwhile, or given another session, says so.
func (h *hold) Lost(ctx context.Context) error {
	fresh, err := h.svc.load(ctx, h.r.ID)
	if err != nil {
		return nil
	}
	now := h.svc.clock()
	if fresh.StatusAt(now) != StatusActive {
		return stateConflict(fresh, now)
	}
	if fresh.SessionID != h.r.SessionID {
		return apierr.New(CodeSessionReplaced, "payment link %s opened another session: reload the page", h.r.ID)
	}
	return nil
}

// caller is checkout's caller for a payment on r: the link's account and
// mode, and the hold.
func (p *Pager) caller(r *record, now time.Time) checkout.Caller {
	return checkout.Caller{AccountID: r.AccountID, MerchantAccount: r.MerchantAccount, TestMode: !r.Livemode, Now: now,
		Link: &hold{svc: p.links, r: r}}
}

// active reads link id for a payment attempt: it must be active at now, and
// sessionID (when given) its current session. Errors: NotFound, Conflict.
func (p *Pager) active(ctx context.Context, id, sessionID string, now time.Time) (*record, error) {
	r, err := p.links.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.StatusAt(now) != StatusActive {
		return nil, stateConflict(r, now)
	}
	if sessionID != "" && sessionID != r.SessionID {
		return nil, apierr.New(CodeSessionReplaced,
			"session %s is not payment link %s's session: open its current session", sessionID, id)
	}
	return r, nil
}

// PageSession is what the page needs to start the drop-in: the session's
// id and sessionData.
type PageSession struct {
	ID          string `json:"id"`
	SessionData string `json:"sessionData"`
	ExpiresAt   string `json:"expiresAt"`
}

// openAttempts bounds the re-reads when tabs open a session at once: the
// losers take the winner's.
const openAttempts = 5

// OpenSession answers link id's current session while it takes payments,
// else opens a new one (expiring with the link, at most checkout's 24
// hours) and names it on the link in the same transaction. Tabs opening at
// once share the one that committed. Errors: NotFound, Conflict
// (payment_link_paid, payment_link_cancelled, payment_link_expired),
// Unavailable.
func (p *Pager) OpenSession(ctx context.Context, id string, now time.Time) (*PageSession, error) {
	var out *PageSession
	race := store.Race{Op: "links.OpenSession", What: "payment link " + id, Attempts: openAttempts}
	err := race.Run(ctx, func(int) error {
		var err error
		out, err = p.openSession(ctx, race, id, now)
		return err
	})
	return out, err
}

// openSession is one attempt of OpenSession.
func (p *Pager) openSession(ctx context.Context, race store.Race, id string, now time.Time) (*PageSession, error) {
	r, err := p.active(ctx, id, "", now)
	if err != nil {
		return nil, err
	}
	if r.SessionID != "" {
		s, payable, err := p.checkout.OpenSession(ctx, r.AccountID, r.SessionID, now)
		if err != nil && !apierr.Is(err, apierr.NotFound) {
			return nil, err
		}
		if err == nil && payable {
			return &PageSession{ID: s.ID, SessionData: s.SessionData, ExpiresAt: s.ExpiresAt}, nil
		}
	}
	exp := r.ExpiresAt
	if cap := now.Add(checkout.MaxExpiry); exp.After(cap) {
		exp = cap
	}
	exp = exp.Truncate(time.Second) // RFC 3339 in seconds, never past the link
	if !exp.After(now) {
		return nil, stateConflict(&record{ID: r.ID, Status: StatusExpired}, now)
	}
	ref := r.OrderReference
	if ref == "" {
		ref = r.ID
	}
	manual := "false"
	if r.Capture == payments.CaptureManual {
		manual = "true"
	}
	in := checkout.CreateSessionRequest{
		Amount: &checkout.Amount{Value: r.Amount.Value, Currency: r.Amount.Currency}, ReturnURL: r.URL, Reference: ref,
		ExpiresAt: exp.UTC().Format(time.RFC3339), CountryCode: r.CountryCode, Channel: "Web", ShopperLocale: r.ShopperLocale,
		AdditionalData: map[string]string{"manualCapture": manual},
	}
	s, sops, err := p.checkout.NewSessionOps(p.caller(r, now), in, r.ID, r.CustomerID)
	if err != nil {
		return nil, err
	}
	r.SessionID = s.ID
	ops, err := r.writeOps(now)
	if err != nil {
		return nil, err
	}
	// Another tab opened one (or the link changed): read again.
	if err := race.Settle(p.links.st.Write(ctx, append(ops, sops...)...)); err != nil {
		return nil, err
	}
	return &PageSession{ID: s.ID, SessionData: s.SessionData, ExpiresAt: s.ExpiresAt}, nil
}

// Setup is checkout's setup of the link's current session. Errors: as
// checkout's Setup, and those of a link that takes no payment.
func (p *Pager) Setup(ctx context.Context, id, sessionID, sessionData string, now time.Time) (*checkout.ClientSetup, error) {
	r, err := p.active(ctx, id, sessionID, now)
	if err != nil {
		return nil, err
	}
	return p.checkout.Setup(ctx, p.caller(r, now), sessionID, sessionData)
}

// Pay submits the shopper's payment on the link's current session. Errors:
// as checkout's PayInSession, and those of a link that takes no payment.
func (p *Pager) Pay(ctx context.Context, id, sessionID string, in checkout.ClientPaymentRequest, now time.Time) (*checkout.PaymentResponse, error) {
	r, err := p.active(ctx, id, sessionID, now)
	if err != nil {
		return nil, err
	}
	return p.checkout.PayInSession(ctx, p.caller(r, now), sessionID, in)
}

// Details completes a payment's pending action (3-D Secure, redirect) on
// one of the link's sessions. Unlike Pay it takes a link that has ended
// since: a payment already decided answers as it stands (details sent
// twice), and one still waiting ends without authorisation. Errors: as
// checkout's DetailsInSession.
func (p *Pager) Details(ctx context.Context, id, sessionID string, in checkout.ClientDetailsRequest, now time.Time) (*checkout.PaymentResponse, error) {
	r, err := p.links.load(ctx, id)
	if err != nil {
		return nil, err
	}
	return p.checkout.DetailsInSession(ctx, p.caller(r, now), sessionID, in)
}
