package cardprocessor

import (
	"context"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Sandbox is the sandbox processor as the card processor port
// (cards.Processor): the areas hold it as they would a live connection, and
// the wiring hands it to test keys' calls.
type Sandbox struct{}

var (
	_ cards.Processor       = Sandbox{}
	_ cards.ChallengeScreen = Sandbox{}
)

// New is the sandbox processor.
func New() Sandbox { return Sandbox{} }

// The 3-D Secure endpoints the sandbox's actions name: its issuer's method
// and challenge screens (the Drop-in serves the challenge itself).
const (
	MethodURL    = "https://sandbox.paygate.test/3ds2/fingerprint"
	ChallengeURL = "https://sandbox.paygate.test/3ds2/challenge"
)

func (Sandbox) AuthoriseCard(_ context.Context, ch cards.Charge, c cards.Card) (cards.Outcome, error) {
	return AuthoriseCard(c, ch.Now)
}

func (Sandbox) AuthoriseStored(_ context.Context, ch cards.Charge, c cards.SavedCard, offSession bool) (cards.Outcome, error) {
	return AuthoriseStored(c, offSession, ch.Now)
}

func (Sandbox) AuthoriseNetworkToken(_ context.Context, ch cards.Charge, c cards.Card, cryptogram bool) (cards.Outcome, error) {
	return AuthoriseNetworkToken(c, cryptogram, ch.Now)
}

func (Sandbox) AuthoriseWallet(_ context.Context, _ cards.Charge, kind, token string) (cards.Outcome, error) {
	out, ok := AuthoriseWallet(kind, token)
	if !ok {
		return out, apierr.New(cards.CodeInvalidWalletToken, "unknown sandbox token: use test_%s_authorised or test_%s_refused", kind, kind)
	}
	return out, nil
}

// Continue ends the sandbox's 3-D Secure steps: a fingerprint by the
// card's flow, a challenge by its transStatus; its issuer approves every
// redirect at once.
func (Sandbox) Continue(_ context.Context, _ cards.Charge, s cards.Step) (cards.Outcome, error) {
	switch s.Asked {
	case cards.IdentifyShopper:
		return AfterFingerprint(s.Flow), nil
	case cards.ChallengeShopper:
		return AfterChallenge(s.TransStatus), nil
	default:
		return cards.Outcome{Result: cards.Authorised}, nil
	}
}

func (Sandbox) Reference(number string) cards.Profile { return ProfileOf(number) }

func (Sandbox) ThreeDS() cards.ThreeDS {
	return cards.ThreeDS{MethodURL: MethodURL, ChallengeURL: ChallengeURL}
}

func (Sandbox) ChallengeWithPassword(password string) cards.Outcome {
	return ChallengeWithPassword(password)
}

// Capture receives a capture: the sandbox's acquirer takes every one the
// payment's state machine allowed (it holds no state, so a repeat is the
// same answer).
func (Sandbox) Capture(context.Context, cards.Modification) error { return nil }

// Cancel receives a cancel, as Capture.
func (Sandbox) Cancel(context.Context, cards.Modification) error { return nil }

// Refund receives a refund, as Capture.
func (Sandbox) Refund(context.Context, cards.Modification) error { return nil }
