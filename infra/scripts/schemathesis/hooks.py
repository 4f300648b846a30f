"""Schemathesis hooks for paygate (loaded by schemathesis.toml).

1. Seeded ids: a generated request that is valid by the schema (positive
   mode) gets the ids of the records seed.py created, so operations reach an
   order, a session and a payment instead of answering 404 every time.
   Negative cases keep their generated ids (malformed ids must be refused).
2. KNOWN: the known failures, each with its reason: false positives, and
   documented rules a JSON Schema cannot state. A defect found by a run is
   fixed, not listed; while a fix is pending its entry says BUG and comes out
   with the fix. Matching is narrow: operation and check, then the error's param
   and message, the failure's text or a predicate on the request.
"""
import atexit
import collections
import json
import os
import sys
import re
import uuid

import schemathesis
from schemathesis.generation import GenerationMode

with open(os.environ["PG_SEED_FILE"]) as f:
    SEED = json.load(f)

# Products of the demo catalog (infra/democatalog/demo.json).
PRODUCT_IDS = [101, 131, 201, 302, 311]


DROPIN_FILES = ["dropin.js", "dropin.css", "hosted.js", "acs.js"]


def _path_ids(path):
    if path.startswith("/pay/"):
        return {"id": SEED["page_link_id"], "session_id": SEED["link_session_id"]}
    if "{linkId}" in path:
        return {"linkId": SEED["link_id"]}
    if path.startswith("/v1/payment-links/{id}"):
        return {"id": SEED["link_id"]}
    if "{payment_link_id}" in path:
        return {"payment_link_id": SEED["paid_link_id"]}
    if path.startswith("/dropin/"):
        return {"version": "1.0.0"}
    if path.startswith("/v2/client/sessions/") or path.startswith("/v2/sessions/"):
        return {"id": SEED["session_id"]}
    if path.startswith("/test-helpers/payments/"):
        return {"id": SEED["payment_id"]}
    if path.startswith("/v1/wallet/") or path.startswith("/test-helpers/wallet/"):
        return {"id": SEED["wallet_transaction_id"]}
    if path.startswith("/v1/transactions/{id}"):
        return {"id": SEED["transaction_id"]}
    if path.startswith("/v1/payouts/cards/{id}"):
        return {"id": SEED["payout_card_id"]}
    if path.startswith("/v1/payouts/{id}"):
        return {"id": SEED["payout_id"]}
    if path.startswith("/v1/split-requests/{id}"):
        return {"id": SEED["split_request_id"]}
    if path.startswith("/v1/disputes/{id}"):
        return {"id": SEED["dispute_id"]}
    if path.startswith("/test-helpers/transactions/{id}"):
        return {"id": SEED["dispute_transaction_id"]}
    if path.startswith("/v1/merchants/beneficiaries/{id}"):
        return {"id": SEED["beneficiary_id"]}
    if path.startswith("/v1/merchants/settlement-payment-orders/{id}"):
        return {"id": SEED["payment_order_id"]}
    if path.startswith("/v1/distributions/{id}"):
        return {"id": SEED["distribution_id"]}
    if path.startswith("/v1/invoices/{id}") or path.startswith("/test-helpers/invoices/{id}"):
        return {"id": SEED["invoice_id"]}
    if path.startswith("/v1/customers/{id}"):
        return {"id": SEED["customer_id"], "token_id": SEED["spare_card_token_id"]}
    if "{paymentPspReference}" in path:
        return {"paymentPspReference": SEED["transaction_id"]}
    if "{orderId}" in path:
        return {"orderId": SEED["order_id"]}
    out = {}
    if "{agent_id}" in path:
        out["agent_id"] = SEED["account_id"]
    return out


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE:
        return case
    path = case.operation.path
    if case.path_parameters is not None:
        for name, value in _path_ids(path).items():
            if name in case.path_parameters:
                case.path_parameters[name] = value
        if path.startswith("/dropin/") and isinstance(case.path_parameters.get("file"), str):
            case.path_parameters["file"] = DROPIN_FILES[len(case.path_parameters["file"]) % len(DROPIN_FILES)]
        if "productId" in case.path_parameters:
            pid = case.path_parameters["productId"]
            if isinstance(pid, int):
                case.path_parameters["productId"] = PRODUCT_IDS[pid % len(PRODUCT_IDS)]
    if isinstance(case.body, dict):
        if isinstance(case.body.get("sessionData"), str):
            case.body["sessionData"] = SEED["link_session_data"] if path.startswith("/pay/") else SEED["session_data"]
        # Adyen's modifications require merchantAccount, and it must be the
        # key's own: give valid cases the seeded account's, so they reach
        # the payment (the refusal of another one is tested in Go).
        if path.startswith("/v2/") and isinstance(case.body.get("merchantAccount"), str):
            case.body["merchantAccount"] = SEED["merchant_account"]
        if path == "/v2/cancels" and isinstance(case.body.get("paymentReference"), str):
            case.body["paymentReference"] = SEED["cancel_reference"]
        if path == "/orders" and isinstance(case.body.get("product_id"), int):
            case.body["product_id"] = PRODUCT_IDS[case.body["product_id"] % len(PRODUCT_IDS)]
        if path == "/v1/payouts" and isinstance(case.body.get("payout_card_id"), str):
            case.body["payout_card_id"] = SEED["payout_card_id"]
        if path == "/v1/split-requests" and isinstance(case.body.get("transaction_id"), str):
            case.body["transaction_id"] = SEED["split_transaction_id"]
        if path == "/v1/merchants/settlement-payment-orders" and isinstance(case.body.get("beneficiary_id"), str):
            case.body["beneficiary_id"] = SEED["beneficiary_id"]
        # A distribution's lines name the seeded beneficiary, once (a second
        # line would name it twice: a 400 duplicate_beneficiary).
        if path == "/v1/distributions" and isinstance(case.body.get("lines"), list) and case.body["lines"]:
            line = case.body["lines"][0]
            if isinstance(line, dict) and isinstance(line.get("beneficiary_id"), str):
                line["beneficiary_id"] = SEED["beneficiary_id"]
                case.body["lines"] = [line]
        if path == "/v1/payments/recurring":
            if isinstance(case.body.get("card_token_id"), str):
                case.body["card_token_id"] = SEED["card_token_id"]
            if isinstance(case.body.get("customer_id"), str):
                case.body["customer_id"] = SEED["customer_id"]
        # A customer's update names its own card token as the default (the
        # seeded customer's; "" clears it).
        if path == "/v1/customers/{id}" and case.body.get("default_card_token_id"):
            case.body["default_card_token_id"] = SEED["card_token_id"]
    # Adyen's stored payment methods name merchantAccount in the query: the
    # seeded account's, as for the bodies above.
    if path.startswith("/v2/storedPaymentMethods") and isinstance(case.query, dict) \
            and isinstance(case.query.get("merchantAccount"), str):
        case.query["merchantAccount"] = SEED["merchant_account"]
    # A valid request with a new body needs a new key: a generated key that
    # comes back with another body is rightly a 422.
    if case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
    return case


def _error(response):
    """The error's code (None in the legacy body), param and message."""
    try:
        body = response.json()
    except Exception:
        return None, None, None
    if not isinstance(body, dict):
        return None, None, None
    if isinstance(body.get("error"), dict):
        e = body["error"]
        return e.get("code"), e.get("param"), e.get("message")
    return None, body.get("source"), body.get("message")  # versions before 2024-01-15


def known(method, path, check, why, *, code=None, param=None, status=None, message=None, failure=None, when=None,
          bug=None):
    """A known failure. Each given matcher must match: code, param and message
    (regexes, fullmatch for code and param) are the error body's; failure is a
    substring of schemathesis's failure text (which names the component); when
    is a predicate on the case."""
    return dict(method=method, path=re.compile(path), check=check, why=why, code=code, param=param,
                status=status, message=message, failure=failure, when=when, bug=bug)


INT64_MAX = 2**63 - 1


def _beyond_int64(case):
    values = list((case.query or {}).values()) + list((case.path_parameters or {}).values())
    for v in values:
        try:
            if int(str(v)) > INT64_MAX:
                return True
        except ValueError:
            pass
    return False


_CONTROL = re.compile("[\x00-\x1f\u202a-\u202e\u2066-\u2069]")


def _param_value(case, param):
    """The request's value at the error's param (a JSON path: a.b[0].c), or None.
    A map key may itself hold "." or "[" (metadata keys are free text), so at
    each object every key the rest of the path starts with is tried."""
    if not param:
        return None
    if case.query and param in case.query:
        return case.query[param]
    if case.path_parameters and param in case.path_parameters:
        return case.path_parameters[param]
    return _walk(case.body, param)


def _walk(cur, rest):
    if rest.startswith("."):
        rest = rest[1:]
    if rest == "":
        return cur
    m = re.match(r"\[(\d+)\]", rest)
    if m and isinstance(cur, list):
        i = int(m.group(1))
        return _walk(cur[i], rest[m.end():]) if i < len(cur) else None
    if isinstance(cur, dict):
        for k in sorted((k for k in cur if isinstance(k, str)), key=len, reverse=True):
            if rest.startswith(k) and (len(rest) == len(k) or rest[len(k)] in ".["):
                v = _walk(cur[k], rest[len(k):])
                if v is not None:
                    return v
    return None


def _contains_control(v):
    if isinstance(v, str):
        return bool(_CONTROL.search(v))
    if isinstance(v, dict):
        return any(_contains_control(k) or _contains_control(e) for k, e in v.items())
    if isinstance(v, list):
        return any(_contains_control(e) for e in v)
    return False


ACCEPTED = "negative_data_rejection"  # ST201: a request the schema refuses was accepted
REJECTED = "positive_data_acceptance"  # ST202: a request the schema allows was refused
ANY = r".*"
LISTS = r"^/(agent/\{agent_id\}/)?(product-types|product-categories|products|deposits|orders|v1/events|v1/customers|v1/payment-links(/statistics)?)$"

KNOWN = [
    # --- False positives: rules that depend on state or on other fields, which
    # a JSON Schema cannot state. Each refusal is the documented 400 naming the field.
    known("GET", ANY, REJECTED, "cursor is opaque: only a next_cursor the same list returned is valid", param="cursor"),
    known("GET", r"^/dashboard/(payments|gate/orders|audit-log|developers/events)$", REJECTED, "cursor is opaque: only the next page's "
          "link the same dashboard list drew is valid (the page says so in HTML, so no param to match)",
          when=lambda case: bool((case.query or {}).get("cursor"))),
    known("GET", r"^/dashboard/(payouts|beneficiaries|payment-orders|distributions|invoices|disputes)$", REJECTED,
          "cursor is opaque: only the next page's link the same dashboard list drew is valid (the money pages' lists)",
          when=lambda case: bool((case.query or {}).get("cursor"))),
    known("GET", LISTS, REJECTED, "created_to must not be before created_from", param="created_to", message="created_to is before.*"),
    known("GET", r"^/dashboard/developers/events$", REJECTED, "the event log's to (a day) must not be before its from",
          when=lambda case: bool((case.query or {}).get("from")) and bool((case.query or {}).get("to"))
          and str(case.query["to"]) < str(case.query["from"])),
    known("POST", r"^/(test-helpers/deposits|orders)$", REJECTED,
          "a DecimalAmount's decimals and maximum depend on its currency's exponent; a deposit is greater than zero",
          param=r"amount|topup_request\.amount"),
    known("POST", r"^/orders$", REJECTED, "an order must fit the product: its currency, type (topup_request only and "
          "always for direct_top_up, quantity 1), range and step, customer_account fields, active; and the balance",
          param=r"currency_code|topup_request.*|quantity|product_id|balance"),
    known("POST", r"^/orders$", REJECTED, "the balance cannot pay this order (seed.py deposits 100,000,000 per currency; "
          "big quantities of big prices still pass it)", code="insufficient_balance"),
    known("POST", r"^/(v2/payments|v2/client/sessions/\{id\}/payments|pay/\{id\}/sessions/\{session_id\}/payments)$", REJECTED,
          "a payment needs a sandbox test card or wallet token that passes Luhn, expiry and CVC rules, "
          "or a stored method of this shopper", param=r"paymentMethod.*|shopperReference"),
    known("POST", r"^/(v2/payments|v2/client/sessions/\{id\}/payments)$", REJECTED,
          "Adyen's recurring rules, which depend on other fields: ContAuth charges a stored method (not with "
          "CardOnFile, not storing one, not from a client key), Moto is not taken; a session's payment keeps the "
          "session's model and store mode",
          param=r"shopperInteraction|recurringProcessingModel|storePaymentMethod"),
    known("POST", r"^/v2/sessions$", REJECTED,
          "Adyen's recurring rules of a session, which depend on other fields: a session is Ecommerce (ContAuth and "
          "Moto refused), storePaymentMethod true is storePaymentMethodMode enabled, storing needs a shopperReference",
          param=r"shopperInteraction|storePaymentMethod|shopperReference"),
    known("POST", ANY, REJECTED, "returnUrl and shopperReference must not carry an e-mail address; merchantAccount "
          "must be the key's own", param=r"returnUrl|shopperReference|merchantAccount",
          message=r".*(personal data|merchant account|merchantAccount).*"),
    known("POST", r"^/v2/(sessions|payments)$", REJECTED, "amount.value 0 is only for a validation session; "
          "expiresAt must be in the future and within 24 h", param=r"amount\.value|expiresAt",
          message=r".*(positive|future|24 hours).*"),
    known("POST", r"^/v2/client/sessions/\{id\}/", REJECTED,
          "a session's payment must repeat the session's amount, reference and shopperReference; "
          "a finished session takes no more payments",
          param=r"amount|reference|shopperReference|merchantAccount", message=r".*(session's|session).*"),
    known("POST", r"^/v2/client/sessions/\{id\}/", REJECTED, "the seeded session was finished by an earlier case", status=409),
    known("POST", r"^/(v2/client/sessions/\{id\}|pay/\{id\}/sessions/\{session_id\})/", REJECTED,
          "in the stateful phase the session id comes from another answer (a payment link's session from POST "
          "/pay/{id}/session, or a merchant's from POST /v2/sessions) while the body's sessionData is the seeded "
          "session's; sessionData must be the session's own", code="session_data_mismatch"),
    known("POST", r"^/(v2/payments/details|v2/client/sessions/\{id\}/payments/details|pay/\{id\}/sessions/\{session_id\}/payments/details)$", REJECTED,
          "details carry a token only the service issues (paymentData, or the authorisationToken inside "
          "threeDSResult, which is base64 of JSON)", param=r"paymentData|details.*"),
    known("POST", r"^/test-helpers/", REJECTED, "the seeded order or payment was already completed by an earlier case",
          status=409),
    known("POST", r"^/(v1/payment-links/\{id\}/(cancel|expiration)|pay/\{id\}/)", REJECTED,
          "the seeded payment link was cancelled or paid by an earlier case (or its session finished): it takes no "
          "more changes or payments", status=409),
    known("POST", r"^/v1/payment-links(/\{id\}/expiration)?$", REJECTED, "expires_at must be later than now and at "
          "most 90 days ahead; the schema states a date-time", param="expires_at",
          message=r"expires_at must be (later than now|at most 90 days from now)"),
    known("POST", r"^/v2/paymentLinks$", REJECTED, "expiresAt must be later than now and at most 90 days ahead; the "
          "schema states a date-time", param="expiresAt",
          message=r"expiresAt must be (later than now|at most 90 days from now)"),
    known("PATCH", r"^/v2/paymentLinks/\{linkId\}$", REJECTED, "the seeded payment link was paid by an earlier case: "
          "a paid link cannot be expired", status=409),
    known("GET", r"^/v1/payment-links/statistics$", REJECTED, "statistics count at most 366 days at once (whole UTC "
          "days); a generated range from the year 2000 is longer", param="created_from",
          message=r"the range counts at most 366 days"),
    known("GET", ANY, REJECTED, "the fuzzer turns the documented maximum 2^63-1 into a float and sends integers "
          "beyond it (9223372036854775999); those are rightly a 400", when=_beyond_int64),
    known("POST", r"^/test-helpers/deposits$", REJECTED, "external_ref takes what Go's unicode.IsPrint takes, less "
          "spaces; the document's pattern states the controls and spaces, but the regex dialect has no Unicode "
          "classes to state the rest (unassigned and private-use code points)", param="external_ref",
          message=r".*printable characters without spaces"),
    known("POST", r"^/v1/webhook-endpoints(/\{id\})?$", REJECTED, "an endpoint URL must be an absolute http(s) URL "
          "whose host and port the key's mode allows (docs/webhooks.md, Outbound safety: https, a public name or address and port "
          "443 or 1024-65535 for live keys; loopback for test keys only where ENVIRONMENT is local; "
          "never link-local, metadata, private, unspecified or numeric host forms, credentials or fragments); address "
          "classes and key modes are beyond a JSON Schema", param="url", message=r"url refused: .*"),
    known("POST", r"^/v1/webhook-endpoints(/\{id\})?$", REJECTED, "an adyen-format endpoint depends on other fields: "
          "no api_version (Adyen's notifications have none) and only the event types Adyen has a code for "
          "(docs/webhooks.md, Adyen-format notifications)", param=r"api_version|enabled_events",
          message=r".*(adyen-format endpoint|no Adyen notification).*"),
    known("POST", r"^/v1/events/\{id\}/resend$", REJECTED, "a resend to an adyen-format endpoint the stateful phase "
          "made depends on the event's type: one with no Adyen notification is the documented 400 "
          "event_type_not_in_format naming endpoint_id (docs/webhooks.md, Adyen-format notifications)",
          code="event_type_not_in_format", param="endpoint_id"),
    known("POST", r"^/v1/webhook-endpoints$", REJECTED, "an account holds at most 16 webhook endpoints; the fuzzer "
          "creates more than that in one run", message=r"an account holds at most 16 webhook endpoints.*"),
    known("POST", r"^/webhooks/adyen/\{connector_id\}$", REJECTED, "a processor notification is taken only for a "
          "configured connector (the seeded store has none: 404) and only with each item's HMAC signature under that "
          "connector's key (401), which the fuzzer cannot compute", code=r"unknown_connector|invalid_hmac_signature"),

    known("POST", r"^/v1/wallet/authorize$", REJECTED, "an IIN's first six digits must be a real date and its last "
          "the check digit of the two-pass weighted mod 11 rule; the pattern states only the digits and the century "
          "digit", param="iin"),
    known("POST", r"^/v1/wallet/authorize$", REJECTED, "the sandbox wallet holds KZT and USD only (test keys; live "
          "keys take every ISO 4217 code, which the schema lists)", param="currency",
          message="the sandbox wallet holds KZT and USD only"),
    known("POST", r"^/v1/wallet/\{id\}/(capture|refund)$", REJECTED, "a capture is at most the authorised amount, a "
          "refund at most what is left of the captured amount (once a helper case confirmed the seeded transaction)",
          param="amount",
          message="amount is more than the (authorised amount|captured amount not yet refunded)"),
    known("GET", r"^/v1/wallet/transactions$", REJECTED, "createdTo must not be before createdFrom", param="createdTo",
          message="createdTo is before.*"),
    known("GET", r"^/v1/transactions$", REJECTED, "created_to must not be before created_from", param="created_to",
          message="created_to is before.*"),
    known("POST", r"^/v1/transactions/\{id\}/(capture|refund)$", REJECTED, "a capture is at most what is still "
          "capturable, a refund at most the balance (the captured amount not yet refunded); both shrink as earlier "
          "cases capture and refund the seeded transaction", param="amount",
          message="amount is more than the .*"),
    known("POST", r"^/v1/payments/recurring$", REJECTED, "a recurring payment needs card_token_id or customer_id (the "
          "schema cannot say one of two); card_on_file is on-session, so off_session true is refused with it",
          param=r"card_token_id|off_session", message=r"(card_token_id is required .*|a card_on_file payment is made by .*)"),
    known("POST", r"^/v1/payments/recurring$", REJECTED, "customer_id charges the customer's default card token: the "
          "stateful phase links the id of a customer it just created (POST /v1/customers; only checkout saves cards) or "
          "one whose tokens it deleted, and such a customer has none to charge (no_card_token; matched by message, as "
          "the legacy error body of 2023-06-01 has no code)", param="customer_id",
          message=r"customer [0-9a-f-]+ has no card token that can be charged .*"),
    known("POST", r"^/v1/customers/\{id\}$", REJECTED, "default_card_token_id must be a card token of the customer "
          "updated: the stateful phase links the id of a customer it just created (POST /v1/customers; only checkout "
          "saves cards) while the body names the seeded customer's token, or an earlier case deleted that token "
          "(card_token_unknown; matched by message, as the legacy error body of 2023-06-01 has no code)",
          param="default_card_token_id", message=r"customer [0-9a-f-]+ has no card token \S+; .*"),
    known("POST", r"^/v1/customers/\{id\}$", REJECTED, "metadata merges into the customer's and holds at most 50 keys "
          "after the merge: generated updates add their keys up on the seeded customer", param="metadata",
          message=r"metadata takes at most 50 keys; after this update it would hold \d+ .*"),
    known("POST", r"^/v1/payments/recurring$", REJECTED, "off_session exists from version 2023-09-01: a request "
          "pinned to 2023-06-01 (Service-Version, which the fuzzer sets) does not have it, so it is an unknown field; one "
          "document serves every version", param="off_session",
          message=r'unknown field "off_session" in version 2023-06-01: it exists from version 2023-09-01 .*'),
    known("POST", r"^/v1/payments/direct$", REJECTED, "encrypted_card must be a JWE made with one of the platform's "
          "keys, which no generator can make (encrypted_card_invalid, one message for every reason)",
          param="encrypted_card", message=r"encrypted_card could not be decrypted: .*"),
    known("POST", r"^/v1/payments/direct$", REJECTED, "in the stateful phase payment_token_id comes from a decode's "
          "answer (a sandbox Apple Pay token from the test helper): such a token pays exactly the amount the shopper "
          "approved in the wallet (amount_mismatch), within an hour of the decode (payment_token_expired)",
          param=r"amount|payment_token_id",
          message=r"(amount must be the amount the shopper approved in the wallet.*|the payment token expired.*)"),
    known("POST", r"^/v1/(applepay|googlepay)/decode$", REJECTED, "token must be a wallet's payment token signed by the "
          "sandbox's (or Apple's, Google's) keys, which no generator can make; the refusal says which check failed "
          "(applepay_token_invalid, googlepay_token_invalid)", param="token",
          message=r"(the token.*|only (EC_v1|ECv2) tokens are supported)"),
    known("POST", r"^/v1/applepay/sessions$", REJECTED, "validation_url must be the https URL of one of Apple Pay's "
          "gateway hosts (anything else is never fetched), and domain_name the host name of the merchant's page",
          param=r"validation_url|domain_name",
          message=r"(validation_url must be the https URL of one of Apple Pay's gateway hosts .*|domain_name must be the host name .*)"),
    known("POST", r"^/test-helpers/wallet-tokens/(applepay|googlepay)$", REJECTED, "number must be a test card the "
          "sandbox processor knows: visa, mc or amex, passing Luhn", param="number",
          message=r"number must be a visa, mc or amex test card number .*"),
    known("POST", r"^/test-helpers/wallet-tokens/applepay$", REJECTED, "a sandbox Apple Pay token is made in a currency "
          "with an ISO 4217 numeric code the platform takes", param="amount.currency",
          message=r"Apple Pay tokens of the sandbox are made in the currencies the platform takes; .*"),
    known("POST", r"^/v1/transactions/\{id\}/(capture|refund)$", REJECTED, "currency, when sent, must be the "
          "transaction's (the seeded one is EUR); the schema allows any ISO 4217 code", param="currency",
          message="currency must be the transaction's.*"),

    known("GET", r"^/v1/(balance/entries|payouts)$", REJECTED, "created_to must not be before created_from",
          param="created_to", message="created_to is before.*"),
    known("POST", r"^/v1/payouts$", REJECTED, "a payout takes from the available balance in its currency (seed.py's capture "
          "makes 490.00 EUR available and generated payouts use it up; other currencies hold nothing)",
          message=r"the available [A-Z]{3} balance is .*"),
    known("POST", r"^/(v1/transactions/\{id\}/refund|v2/payments/\{paymentPspReference\}/(refunds|reversals))$", REJECTED,
          "a refund (or a reversal of a captured payment) takes from the available balance, which the seeded payout "
          "and generated payouts reserved part of", message=r"the available [A-Z]{3} balance is .*"),
    known("POST", r"^/v1/payouts/\{id\}/cancel$", REJECTED, "the seeded payout was sent by make run's payouts sender "
          "(in_transit, then paid) or cancelled by an earlier case: a payout not pending is a 409 payout_not_pending "
          "naming its status", status=409),
    known("POST", r"^/v1/payouts/cards$", REJECTED, "a payout card number must pass Luhn and be visa or mc; its expiry must "
          "be in the future and at most 20 years ahead; a holder name of spaces alone is blank",
          param=r"number|expiry_year|holder_name"),
    known("POST", r"^/v1/split-requests(/\{id\})?$", REJECTED, "a split's parts name each partner once, and their shares "
          "(amounts, or percentages of the payment's amount) sum to the seeded payment's amount or less",
          param=r"parts|parts\[\d+\]\.(reference|amount)"),
    known("POST", r"^/v2/payments/\{paymentPspReference\}/(captures|refunds|amountUpdates)$", REJECTED,
          "a capture is at most what is still capturable, a refund at most the balance, each in the payment's "
          "currency (the seeded one is EUR); both shrink as earlier cases capture and refund the seeded transaction",
          param=r"amount\.value|amount\.currency", message=r"(amount is more than|currency must be the transaction's).*"),
    known("POST", r"^/v2/(payments/\{paymentPspReference\}/[a-zA-Z]+|cancels)$", REJECTED, "the seeded transaction "
          "(and the seeded cancel reference's payment) was captured, refunded, reversed or cancelled by an earlier "
          "case: a modification its status does not allow is a 409 naming the status", status=409),

    known("GET", r"^/v1/disputes$", REJECTED, "created_to must not be before created_from", param="created_to",
          message="created_to is before.*"),
    known("POST", r"^/v1/disputes/\{id\}/evidence$", REJECTED, "a document's bytes must be of its content_type (a PDF "
          "starts %PDF-, a PNG with its signature, JPEG FF D8 FF, TIFF II*/MM*, text is UTF-8 without NUL): a JSON "
          "Schema cannot state what base64-decoded bytes start with", param=r"documents\[\d+\]\.data",
          message=r"documents\[\d+\]\.data (is not a .* document|is empty)"),
    known("POST", r"^/v1/disputes/\{id\}/evidence$", REJECTED, "a document name of spaces alone is blank",
          param=r"documents\[\d+\]\.name", message=r".* must not be blank"),
    known("POST", r"^/v1/disputes/\{id\}/evidence$", REJECTED, "a dispute holds at most 20 documents and 5 MiB of "
          "them: generated calls add up on the seeded dispute (413 evidence_too_large, 400 too_many_documents)",
          code=r"too_many_documents|evidence_too_large"),
    known("POST", r"^/test-helpers/transactions/\{id\}/dispute$", REJECTED, "a dispute's amount is at most what is "
          "left of the payment (the seeded one: 200.00 EUR), due_by in the future and at most 30 days away",
          param=r"amount|due_by", message=r"(amount is more than what is left|due_by must be in the future).*"),
    known("GET", r"^/v1/(merchants/(beneficiaries|settlement-payment-orders)|distributions|invoices)$", REJECTED,
          "created_to must not be before created_from", param="created_to", message="created_to is before.*"),
    known("POST", r"^/v1/merchants/beneficiaries(/\{id\})?$", REJECTED, "a beneficiary's identifiers carry check digits "
          "(IIN and BIN: the weighted mod 11 rule, an IIN's first six digits a real date, a BIN's month, kind and "
          "attribute; IBAN: ISO 13616 mod 97), its kbe must suit its type (a person is sector 9), a person has an iin "
          "and no bin (a company the other way round), a name is not blank, an e-mail is a plain address: rules the "
          "patterns cannot state", param=r"iin|bin|iban|kbe|name|email"),
    known("POST", r"^/v1/(merchants/(beneficiaries/\{id\}/transfer|settlement-payment-orders)|distributions)$", REJECTED,
          "money moves only from what is held in that currency: the seeded beneficiary holds KZT and generated "
          "transfers and orders use it up; the merchant's available balance likewise",
          message=r"the (available|beneficiary [0-9a-f-]+'s) [A-Z]{3} balance is .*"),
    known("POST", r"^/v1/(payouts|merchants/settlement-payment-orders|distributions)$", REJECTED, "a generated case may "
          "accept the seeded dispute (a loss): the account then owes the disputed amount, and nothing leaves its available "
          "balance until the debt is repaid", code="insufficient_balance", message=r"the account owes .* from disputes.*"),
    known("POST", r"^/v1/(merchants/settlement-payment-orders|distributions)$", REJECTED, "a generated case may disable the "
          "seeded beneficiary (POST /v1/merchants/beneficiaries/{id} with status disabled): then it takes no money",
          message=r"beneficiary \S+ is disabled: .*"),  # code is absent in bodies before 2024-01-15
    known("POST", r"^/v1/merchants/settlement-payment-orders$", REJECTED, "a request_id that already made an order with "
          "other values is refused (the same values answer 200 with that order)", param="request_id",
          message=r"request_id .* already made payment order .*"),  # code is absent in bodies before 2024-01-15
    known("POST", r"^/v1/distributions$", REJECTED, "the lines total at most 10^15 minor units", param="lines",
          message=r"the lines total more than .*"),
    known("POST", r"^/v1/invoices$", REJECTED, "a payer holds exactly one of phone, iin and bin, each valid (an IIN's date "
          "and check digit, a BIN's, +7 numbers have ten digits after the 7); expires_at is at least a minute and at most "
          "30 days ahead; line items add up to the amount; a description is not blank",
          param=r"payer(\.(phone|iin|bin))?|expires_at|line_items(\[\d+\]\.(name|quantity))?|description"),
    known("POST", r"^/(v1/invoices/\{id\}/cancel|test-helpers/invoices/\{id\}/pay)$", REJECTED,
          "the seeded invoice was paid or cancelled by an earlier case: its other endings are a 409 naming why", status=409),

    # --- Documented rules a JSON Schema cannot state on every field.
    known("GET", ANY, ACCEPTED, "an empty query parameter (?region_code=, ?limit=, ?created_to=) counts as absent on "
          "every list, as docs/conventions.md's Lists convention says (r.Query returns \"\" for both)",
          failure="in query"),
    known("GET|POST", ANY, REJECTED, "the string rule (docs/conventions.md, Strict input): no C0 control and no bidirectional "
          "override or isolate in any string; the document states it in words, not as a pattern on every string, so "
          "a generated case carrying one in the refused field is rightly refused",
          when="param_has_control"),
    known("POST", ANY, REJECTED, "the integer rule (docs/conventions.md, Strict input): an integer is written without a fraction "
          "or exponent, so 25256.0, an integer for JSON Schema, is a 400 parameter_invalid_type",
          message=r".* must be an integer written without a fraction or an exponent .*"),
]


@schemathesis.hook
def filter_failure(context, failure, case, response):
    checks = getattr(failure, "checks", ())
    code, param, message = _error(response) if response is not None else (None, None, None)
    status = response.status_code if response is not None else None
    for k in KNOWN:
        if not re.fullmatch(k["method"], case.operation.method.upper()) or not k["path"].search(case.operation.path):
            continue
        if k["check"] not in checks:
            continue
        if k["status"] is not None and k["status"] != status:
            continue
        if k["code"] is not None and not re.fullmatch(k["code"], code or ""):
            continue
        if k["param"] is not None and not re.fullmatch(k["param"], param or ""):
            continue
        if k["message"] is not None and not re.fullmatch(k["message"], message or ""):
            continue
        if k["failure"] is not None and k["failure"] not in str(failure):
            continue
        if k["when"] == "param_has_control":
            if not _contains_control(_param_value(case, param)):
                continue
        elif k["when"] is not None and not k["when"](case):
            continue
        MATCHED[id(k)] += 1
        return False
    return True


MATCHED = collections.Counter()


@atexit.register
def _report():
    """What the known list hid this run; a BUG entry that matched nothing may be fixed."""
    lines = ["known failures dropped this run (infra/scripts/schemathesis/hooks.py):"]
    for k in KNOWN:
        lines.append(f"  {MATCHED[id(k)]:5d}  {k['method']} {k['path'].pattern}  {k['why'][:110]}")
    print("\n".join(lines), file=sys.stderr)
