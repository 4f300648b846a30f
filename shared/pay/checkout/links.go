package checkout

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Payment links (shared/pay/links) take their payments through sessions their
// hosted page opens (NewSessionOps): the session names the link
// (Session.PaymentLinkID) and its payments carry the link's id and customer.
// A link is paid at most once, so the link is part of the payment's own
// write: the page reads the link for the request and hands it in as the
// caller's LinkHold, which refuses an attempt the link no longer takes
// before the processor is asked (Admit), and adds the link's change to the
// transaction of a payment that succeeds, conditioned on the version it
// read (Ops). Of two tabs paying one link at once, one write commits; the
// other fails its conditions and records nothing, so no money is held for
// it. (The sandbox processor answers in-process; a live processor would be
// asked only after the attempt is the session's pending payment, the claim
// the 3-D Secure path already makes, so a losing tab is refused first.)
//
// A link's session is paid only with its hold: elsewhere (a client key on
// /v2/client/..., /v2/payments/details, the challenge test helper) its
// payments are refused with 409 payment_link_session.

// LinkHold is a payment link as the page paying it read it for this request.
type LinkHold interface {
	// LinkID is the link's id.
	LinkID() string
	// Admit refuses (409) a payment attempt on s that the link no longer
	// takes: paid, cancelled, expired, or s is not its current session.
	Admit(s *Session, now time.Time) error
	// Ops are the writes that go with payment p in its transaction: when p
	// succeeded, the link becomes paid (its version condition, event and
	// indexes); nothing otherwise.
	Ops(p *payments.Payment, now time.Time) ([]store.Op, error)
	// Lost explains a write that failed a condition: it reads the link again
	// and answers why it no longer takes the payment, or nil when it would.
	Lost(ctx context.Context) error
}

// linkHold is the hold a payment on s (nil: no session) needs: nil for no
// link. A link's session paid without its link's hold, or a hold used on
// another session, is a 409.
func linkHold(c Caller, s *Session) (LinkHold, error) {
	var link, held string
	if s != nil {
		link = s.PaymentLinkID
	}
	if c.Link != nil {
		held = c.Link.LinkID()
	}
	switch {
	case link == held:
		return c.Link, nil
	case link != "":
		return nil, apierr.New(CodePaymentLinkSession,
			"session %s belongs to a payment link: it is paid on the link's page", s.ID)
	default:
		return nil, apierr.New(CodePaymentLinkSession, "a payment link's page pays only the link's own sessions")
	}
}

// NewSessionOps validates in as POST /v2/sessions does and returns the new
// session's answer and its writes, for a payment link's page, which commits
// them with the link's own change (the link names its current session). The
// session names the link and its customer. Errors: as CreateSession's
// validation, Internal.
func (svc *Service) NewSessionOps(c Caller, in CreateSessionRequest, linkID, customerID string) (*SessionResponse, []store.Op, error) {
	s, err := in.validate(c)
	if err != nil {
		return nil, nil, err
	}
	s.PaymentLinkID, s.CustomerID = linkID, customerID
	sd, err := svc.sessionData(s)
	if err != nil {
		return nil, nil, apierr.Wrap("checkout.NewSessionOps", apierr.Internal, err)
	}
	ops, err := s.createOps()
	if err != nil {
		return nil, nil, err
	}
	resp := s.response(sd)
	return &resp, ops, nil
}

// OpenSession reads session id of accountID, for a payment link's page:
// whether it still takes payments at now, and its sessionData. Errors:
// NotFound, Unavailable, Internal.
func (svc *Service) OpenSession(ctx context.Context, accountID, id string, now time.Time) (resp *SessionResponse, payable bool, err error) {
	s, err := svc.loadSession(ctx, accountID, id)
	if err != nil {
		return nil, false, err
	}
	sd, err := svc.sessionData(s)
	if err != nil {
		return nil, false, apierr.Wrap("checkout.OpenSession", apierr.Internal, err)
	}
	r := s.response(sd)
	return &r, s.payable(now) == nil, nil
}
