package customers

import (
	"context"

	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// StoredMethods are a shopper's stored payment methods, as Adyen's GET
// /storedPaymentMethods lists them: the card tokens of the customer whose
// external_ref is shopperRef (at most vault.MaxShopperTokens), or the
// shopper's legacy stored cards before it has a customer; the same records
// and ids as GET /v1/customers/{id}/card-tokens and checkout's
// storedPaymentMethodId. A shopper with none has an empty list. Errors:
// Invalid shopperReference (empty), Unavailable.
func (s *Service) StoredMethods(ctx context.Context, accountID, shopperRef string) ([]vault.CardToken, error) {
	if shopperRef == "" {
		return nil, apierr.Missing("shopperReference")
	}
	return s.vault.ShopperTokens(ctx, accountID, shopperRef)
}

// DisableStored deletes the shopper's stored payment method id (Adyen's
// DELETE /storedPaymentMethods/{id}), as DeleteToken does: it no longer
// pays. Errors: Invalid shopperReference (empty); NotFound (no such method
// of this shopper: another shopper's or account's id, or one deleted
// already); Unavailable.
func (s *Service) DisableStored(ctx context.Context, accountID, shopperRef, id string) error {
	if shopperRef == "" {
		return apierr.Missing("shopperReference")
	}
	customerID, err := s.vault.CustomerID(ctx, accountID, shopperRef)
	if err == nil {
		_, err = s.DeleteToken(ctx, accountID, customerID, id)
		return err
	}
	if !apierr.Is(err, apierr.NotFound) {
		return err
	}
	// No customer yet: the shopper's legacy stored cards are its methods.
	t, err := s.vault.LegacyToken(ctx, accountID, shopperRef, id)
	if err != nil {
		return err
	}
	err = s.st.Write(ctx, vault.DeleteLegacyOps(t)...)
	if _, ok := store.IsConditionFailed(err); ok {
		return apierr.NotFoundf("no such card token: %s", id) // deleted meanwhile
	}
	if err != nil {
		return apierr.Wrap("customers.DisableStored", apierr.Unavailable, err)
	}
	return nil
}
