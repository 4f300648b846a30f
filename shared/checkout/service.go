package checkout

import (
	"context"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/checkout/sessiondata"
	"github.com/paygate/paygate/shared/payments"
	"github.com/paygate/paygate/shared/store"
)

// Service holds what every checkout route needs.
type Service struct {
	st     store.Store
	pays   *payments.Repo
	signer *sessiondata.Signer
}

// New builds the service over st, sealing tokens with signer.
func New(st store.Store, signer *sessiondata.Signer) *Service {
	return &Service{st: st, pays: payments.NewRepo(st), signer: signer}
}

// invalid is a 400 naming param with a specific code.
func invalid(param, code, format string, args ...any) *apierr.Error {
	e := apierr.Invalidf(param, format, args...)
	e.Code = code
	return e
}

// Open builds the service with its signing secret (see sessiondata.LoadSecret):
// allowGenerated lets local runs without SESSION_SIGNING_SECRET use a
// persisted random one.
func Open(ctx context.Context, st store.Store, getenv func(string) string, allowGenerated bool) (*Service, error) {
	secret, err := sessiondata.LoadSecret(ctx, st, getenv, allowGenerated)
	if err != nil {
		return nil, err
	}
	signer, err := sessiondata.NewSigner(secret)
	if err != nil {
		return nil, err
	}
	return New(st, signer), nil
}
