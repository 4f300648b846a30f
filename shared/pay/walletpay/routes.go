package walletpay

import (
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the WalletSessionsFunction's routes (declared in SessionsGroup).
func (s *Service) Group() httpapi.Group {
	return SessionsGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/applepay/sessions":                 s.appleSession,
		"POST /v1/applepay/decode":                   s.appleDecode,
		"POST /v1/googlepay/sessions":                s.googleSession,
		"POST /v1/googlepay/decode":                  s.googleDecode,
		"POST /test-helpers/wallet-tokens/applepay":  s.appleTestToken,
		"POST /test-helpers/wallet-tokens/googlepay": s.googleTestToken,
	})
}

func caller(r *httpapi.Request) Caller {
	return Caller{AccountID: r.AccountID(), TestMode: r.TestMode()}
}

func (s *Service) appleSession(r *httpapi.Request) (*httpapi.Response, error) {
	var in AppleSessionRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	out, err := s.AppleSession(r.HTTP.Context(), caller(r), in)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindAppleSession, out), nil
}

// optionalBody decodes a body that may be left out (none is {}).
func optionalBody(r *httpapi.Request, v any) error {
	if len(r.Body) == 0 {
		return nil
	}
	return r.Decode(v)
}

func (s *Service) googleSession(r *httpapi.Request) (*httpapi.Response, error) {
	var in GoogleSessionRequest
	if err := optionalBody(r, &in); err != nil {
		return nil, err
	}
	out, err := s.GoogleSession(r.HTTP.Context(), caller(r), in)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindGoogleSession, out), nil
}

func decoded(d *Decoded, err error) (*httpapi.Response, error) {
	if err != nil {
		return nil, err
	}
	if d.Created {
		return httpapi.Created(wallettokens.KindToken, d.Token), nil
	}
	return httpapi.OK(wallettokens.KindToken, d.Token), nil
}

func (s *Service) appleDecode(r *httpapi.Request) (*httpapi.Response, error) {
	var in DecodeRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	return decoded(s.AppleDecode(r.HTTP.Context(), DecodeInput{Caller: caller(r), Token: in.Token, Idem: r.Idem()}))
}

func (s *Service) googleDecode(r *httpapi.Request) (*httpapi.Response, error) {
	var in DecodeRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	return decoded(s.GoogleDecode(r.HTTP.Context(), DecodeInput{Caller: caller(r), Token: in.Token, Idem: r.Idem()}))
}

func (s *Service) appleTestToken(r *httpapi.Request) (*httpapi.Response, error) {
	var in AppleTestTokenRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	out, err := s.AppleTestToken(in)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindTestToken, out), nil
}

func (s *Service) googleTestToken(r *httpapi.Request) (*httpapi.Response, error) {
	var in GoogleTestTokenRequest
	if err := optionalBody(r, &in); err != nil {
		return nil, err
	}
	out, err := s.GoogleTestToken(caller(r), in)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindTestToken, out), nil
}
