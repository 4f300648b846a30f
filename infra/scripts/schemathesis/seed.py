"""Seeds the local gateway for schemathesis: an order, a checkout session, a
payment waiting for its 3-D Secure challenge, a wallet transaction, a
captured card payment, a payout card and a payout, a split request, a
customer with two card tokens, payment links and a link's page session, a
dispute with evidence (and another captured payment for the helper that opens
one), a beneficiary holding KZT with a distribution and a payment order, and an
unpaid invoice, so generated requests reach real records, not only 404s. Prints
the ids as JSON (read by hooks.py).

And a dashboard session of the sandbox owner, so the dashboard's pages are
fuzzed signed in (its forms then answer 403: the fuzzer has no CSRF token).

Environment: PG_BASE_URL, SANDBOX_API_KEY, SANDBOX_DASHBOARD_PASSWORD.
"""
import http.cookiejar
import re
import base64
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid

BASE = os.environ["PG_BASE_URL"]
KEY = os.environ["SANDBOX_API_KEY"]


def call(method, path, body=None):
    req = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", KEY)
    req.add_header("Content-Type", "application/json")
    req.add_header("Idempotency-Key", str(uuid.uuid4()))
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as e:
        sys.exit(f"seed: {method} {path}: {e.code} {e.read().decode()}")


def card(number):
    return {"type": "scheme", "encryptedCardNumber": "test_" + number, "encryptedExpiryMonth": "test_03",
            "encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"}


me = call("GET", "/v1/merchants/me")
# Balances in every currency of the demo catalog, so valid orders are not
# refused for want of money.
for cur in ("EUR", "JPY", "KZT", "USD"):
    call("POST", "/test-helpers/deposits", {"currency_code": cur, "amount": "100000000", "external_ref": "schemathesis-" + cur})
order = call("POST", "/orders", {"product_id": 131, "quantity": 1, "external_ref": "schemathesis-seed"})
session = call("POST", "/v2/sessions", {"amount": {"value": 1000, "currency": "EUR"}, "reference": "schemathesis-seed",
                                        "returnUrl": "https://shop.example.com/return", "countryCode": "NL",
                                        "shopperReference": "shopper-seed"})
# The 5454 card asks for a fingerprint, then a challenge: the payment then
# waits on /test-helpers/payments/{id}/challenge.
pay = call("POST", "/v2/payments", {"amount": {"value": 1000, "currency": "EUR"}, "reference": "schemathesis-pay",
                                    "returnUrl": "https://shop.example.com/return", "paymentMethod": card("5454545454545454")})
token = pay["action"]["authorisationToken"]
three_ds = base64.b64encode(json.dumps({"authorisationToken": token}).encode()).decode()
challenge = call("POST", "/v2/payments/details", {"details": {"threeDSResult": three_ds}})
if challenge.get("resultCode") != "ChallengeShopper":
    sys.exit(f"seed: expected a challenge, got {challenge}")
# A wallet transaction whose sandbox shopper waits for the test helpers, so
# generated captures, cancels, refunds and helper calls reach a real record.
wallet = call("POST", "/v1/wallet/authorize", {"amount": 100000, "phoneNumber": "+77011234567", "iin": "900101300017",
                                               "orderReference": "schemathesis-seed", "currency": "KZT"})
# A card payment authorised (no 3-D Secure) for manual capture and captured
# in part, so generated captures (of the rest), refunds and reads of
# /v1/transactions reach a real transaction.
tx = call("POST", "/v2/payments", {"amount": {"value": 100000, "currency": "EUR"}, "reference": "schemathesis-tx",
                                   "returnUrl": "https://shop.example.com/return", "paymentMethod": card("4111111111111111"),
                                   "additionalData": {"manualCapture": "true"}})
call("POST", "/v1/transactions/" + tx["pspReference"] + "/capture", {"amount": 50000})
# The capture made 500.00 EUR available: a sandbox payout card that is paid,
# and a payout of 10.00 to it, so payout reads and new payouts reach them.
payout_card = call("POST", "/v1/payouts/cards", {"number": "4000056655665556", "expiry_month": 3, "expiry_year": 2030,
                                                 "holder_name": "Schemathesis Seed"})
payout = call("POST", "/v1/payouts", {"amount": {"value": 1000, "currency": "EUR"}, "payout_card_id": payout_card["id"],
                                      "reference": "schemathesis-seed"})
# A payment authorised and not captured, divided by a split request that
# generated updates can change (until a generated delete removes it).
split_tx = call("POST", "/v2/payments", {"amount": {"value": 100000, "currency": "EUR"}, "reference": "schemathesis-split",
                                         "returnUrl": "https://shop.example.com/return", "paymentMethod": card("4111111111111111"),
                                         "additionalData": {"manualCapture": "true"}})
split = call("POST", "/v1/split-requests", {"transaction_id": split_tx["pspReference"],
                                            "parts": [{"reference": "seed-partner", "percentage": 10}]})
# A payment held for manual capture under its own reference, for generated
# cancels by reference (POST /v2/cancels).
call("POST", "/v2/payments", {"amount": {"value": 1000, "currency": "EUR"}, "reference": "schemathesis-cancel",
                              "returnUrl": "https://shop.example.com/return", "paymentMethod": card("4111111111111111"),
                              "additionalData": {"manualCapture": "true"}})
# A customer with two card tokens, saved by checkout payments: recurring
# payments charge the first; deleting a card token takes the second, so the
# first keeps paying whatever order the cases run in.
saved = []
for number in ("4111111111111111", "5555555555554444"):
    p = call("POST", "/v2/payments", {"amount": {"value": 1000, "currency": "EUR"}, "reference": "schemathesis-save",
                                      "returnUrl": "https://shop.example.com/return", "paymentMethod": card(number),
                                      "shopperReference": "schemathesis-shopper", "storePaymentMethod": True})
    saved.append(call("GET", "/v1/transactions/" + p["pspReference"]))
customer = saved[0]["customer_id"]
if saved[1]["customer_id"] != customer or saved[0]["card_token_id"] == saved[1]["card_token_id"]:
    sys.exit(f"seed: expected one customer with two card tokens, got {saved}")
# Beneficiaries: an invoice the sandbox pays makes KZT available; a
# beneficiary holds part of it (a distribution), a payment order reserves
# some of that, and an unpaid invoice waits for generated cancels and
# payments.
funds = call("POST", "/v1/invoices", {"amount": {"value": 100000000, "currency": "KZT"}, "payer": {"phone": "+77011234567"},
                                       "description": "schemathesis funds", "order_reference": "schemathesis-funds"})
call("POST", "/test-helpers/invoices/" + funds["id"] + "/pay", {})
beneficiary = call("POST", "/v1/merchants/beneficiaries", {"name": "Schemathesis Seed", "type": "person", "iin": "900101300017",
                                                           "iban": "KZ699990000000000001", "bic": "CASPKZKA", "kbe": "19"})
distribution = call("POST", "/v1/distributions", {"reference": "schemathesis-seed", "lines": [
    {"beneficiary_id": beneficiary["id"], "amount": {"value": 50000000, "currency": "KZT"}}]})
payment_order = call("POST", "/v1/merchants/settlement-payment-orders", {"beneficiary_id": beneficiary["id"],
                     "amount": {"value": 1000, "currency": "KZT"}, "purpose_code": "119", "description": "schemathesis seed",
                     "request_id": "schemathesis-seed"})
invoice = call("POST", "/v1/invoices", {"amount": {"value": 1000, "currency": "KZT"}, "payer": {"phone": "+77011234567"},
                                        "description": "schemathesis seed", "order_reference": "schemathesis-seed"})
# Two payment links: one for the links API (which may cancel it), one whose
# hosted page has its session open, for the page's calls.
link_api = call("POST", "/v1/payment-links", {"amount": {"value": 5000, "currency": "EUR"}, "order_reference": "schemathesis-link"})
link_page = call("POST", "/v1/payment-links", {"amount": {"value": 5000, "currency": "EUR"}, "description": "schemathesis page"})
link_session = call("POST", "/pay/" + link_page["id"] + "/session", {})
# A third link, paid on its page, for /v1/transactions/by-payment-link.
link_paid = call("POST", "/v1/payment-links", {"amount": {"value": 700, "currency": "USD"}})
paid_session = call("POST", "/pay/" + link_paid["id"] + "/session", {})
call("POST", "/pay/" + link_paid["id"] + "/sessions/" + paid_session["id"] + "/payments",
     {"sessionData": paid_session["sessionData"], "paymentMethod": card("4111111111111111")})
# A dispute that needs a response, with evidence (so a generated submit
# reaches the issuer), on a payment of its own (refunds of the seeded
# transaction stay possible); and a captured payment not disputed yet, for
# the helper that opens one.
def captured(reference):
    p = call("POST", "/v2/payments", {"amount": {"value": 20000, "currency": "EUR"}, "reference": reference,
                                      "returnUrl": "https://shop.example.com/return", "paymentMethod": card("4111111111111111")})
    return p["pspReference"]


dispute = call("POST", "/test-helpers/transactions/" + captured("schemathesis-dispute") + "/dispute", {"reason": "fraudulent"})
call("POST", "/v1/disputes/" + dispute["id"] + "/evidence",
     {"description": "Delivered and signed for.",
      "documents": [{"name": "receipt.txt", "content_type": "text/plain",
                     "data": base64.b64encode(b"signed for by J. Smith").decode()}]})


def dashboard_session():
    """Signs in as the sandbox owner, as a browser does; returns the session cookie's value."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(BASE + "/dashboard/sign-in", timeout=10).read().decode()
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"csrf": csrf, "email": "owner@sandbox.test",
                                   "password": os.environ["SANDBOX_DASHBOARD_PASSWORD"]}).encode()
    opener.open(urllib.request.Request(BASE + "/dashboard/sign-in", data=form, method="POST"), timeout=10).read()
    for c in jar:
        if c.name == "paygate_dashboard":
            return c.value
    sys.exit("seed: the dashboard sign-in set no session cookie")


json.dump({"dashboard_session": dashboard_session(), "dispute_id": dispute["id"], "dispute_transaction_id": captured("schemathesis-dispute-open"),
           "transaction_id": tx["pspReference"], "account_id": me["id"], "order_id": order["id"], "session_id": session["id"],
           "session_data": session["sessionData"], "payment_id": pay["pspReference"],
           "wallet_transaction_id": wallet["walletTransactionId"], "merchant_account": me["merchant_account"],
           "cancel_reference": "schemathesis-cancel", "payout_card_id": payout_card["id"], "payout_id": payout["id"],
           "split_request_id": split["id"], "split_transaction_id": split_tx["pspReference"], "customer_id": customer,
           "card_token_id": saved[0]["card_token_id"], "spare_card_token_id": saved[1]["card_token_id"],
           "beneficiary_id": beneficiary["id"], "distribution_id": distribution["id"], "payment_order_id": payment_order["id"],
           "invoice_id": invoice["id"],
           "link_id": link_api["id"], "page_link_id": link_page["id"],
           "link_session_id": link_session["id"], "link_session_data": link_session["sessionData"],
           "paid_link_id": link_paid["id"]}, sys.stdout)
