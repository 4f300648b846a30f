"""Adyen's own Python library (Adyen on PyPI) against the service's /v2 face,
with only its base URL changed: the recurring fields of a payment (a
card-on-file first payment that stores the card, then a merchant-initiated
ContAuth charge of it) and the stored payment methods (RecurringApi's list
and delete). Run by infra/scripts/adyen-python.sh after the smoke test.

usage: check.py BASE_URL API_KEY MERCHANT_ACCOUNT
"""

import sys
import uuid

import Adyen
from Adyen.exceptions import AdyenError


def expect(what, want, got):
    if want != got:
        raise AssertionError(f"{what}: want {want!r}, got {got!r}")
    print(f"ok  {what}: {got}")


def main(url, key, merchant):
    adyen = Adyen.Adyen()
    adyen.client.xapikey = key
    adyen.client.platform = "test"
    # The one change a migrating merchant makes: the base URL of each API.
    payments = adyen.checkout.payments_api
    recurring = adyen.checkout.recurring_api
    payments.baseUrl = url + "/v2"
    recurring.baseUrl = url + "/v2"

    shopper = "python-shopper-" + str(uuid.uuid4())
    amount = {"value": 1000, "currency": "EUR"}
    card = {"type": "scheme", "number": "4111111111111111", "expiryMonth": "03", "expiryYear": "2030",
            "cvc": "737", "holderName": "Python Library"}
    first = payments.payments({
        "merchantAccount": merchant, "reference": "python-first-" + str(uuid.uuid4()), "amount": amount,
        "returnUrl": "https://shop.example.com/return", "paymentMethod": card, "shopperReference": shopper,
        "storePaymentMethod": True, "shopperInteraction": "Ecommerce", "recurringProcessingModel": "CardOnFile",
    }, idempotency_key=str(uuid.uuid4())).message
    expect("first payment resultCode", "Authorised", first["resultCode"])
    detail = first["additionalData"]["recurring.recurringDetailReference"]
    expect("first payment recurring.shopperReference", shopper, first["additionalData"]["recurring.shopperReference"])

    mit = payments.payments({
        "merchantAccount": merchant, "reference": "python-mit-" + str(uuid.uuid4()), "amount": {"value": 499, "currency": "EUR"},
        "returnUrl": "https://shop.example.com/return", "shopperReference": shopper,
        "shopperInteraction": "ContAuth", "recurringProcessingModel": "UnscheduledCardOnFile",
        "paymentMethod": {"type": "scheme", "storedPaymentMethodId": detail},
    }, idempotency_key=str(uuid.uuid4())).message
    expect("ContAuth resultCode", "Authorised", mit["resultCode"])
    expect("ContAuth recurringDetailReference", detail, mit["additionalData"]["recurring.recurringDetailReference"])

    query = {"shopperReference": shopper, "merchantAccount": merchant}
    listed = recurring.get_tokens_for_stored_payment_details(query_parameters=query).message
    methods = listed.get("storedPaymentMethods", [])
    expect("stored methods of the shopper", 1, len(methods))
    expect("the stored method is the recurringDetailReference", detail, methods[0]["id"])
    expect("stored method expiryYear (two digits)", "30", methods[0]["expiryYear"])

    recurring.delete_token_for_stored_payment_details(detail, query_parameters=query)
    listed = recurring.get_tokens_for_stored_payment_details(query_parameters=query).message
    expect("stored methods after the delete", 0, len(listed.get("storedPaymentMethods", [])))
    try:
        recurring.delete_token_for_stored_payment_details(detail, query_parameters=query)
        raise AssertionError("a disabled stored method was disabled again")
    except AdyenError as e:
        expect("a second delete: status", 404, e.status_code)
    try:
        payments.payments({
            "merchantAccount": merchant, "reference": "python-bad-" + str(uuid.uuid4()), "amount": amount,
            "returnUrl": "https://shop.example.com/return", "shopperReference": shopper,
            "shopperInteraction": "ContAuth", "recurringProcessingModel": "Subscription", "paymentMethod": card,
        })
        raise AssertionError("a ContAuth payment without a stored method was accepted")
    except AdyenError as e:
        expect("ContAuth without a stored method: status", 400, e.status_code)
    print("Adyen Python library: every call answered as Adyen's library expects")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
