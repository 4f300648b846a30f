"""Adyen's own Python library (Adyen on PyPI) against the service's /v2 face,
with only its base URL changed: the recurring fields of a payment (a
card-on-file first payment that stores the card, then a merchant-initiated
ContAuth charge of it), the stored payment methods (RecurringApi's list
and delete), and Adyen-format notifications (a webhook endpoint created with
"format": "adyen", whose items the library's is_valid_hmac_notification
accepts, and refuses once tampered with). Run by infra/scripts/adyen-python.sh
after the smoke test.

usage: check.py BASE_URL API_KEY MERCHANT_ACCOUNT [NOTIFICATIONS_OUT]

NOTIFICATIONS_OUT, when given, receives the notifications checked and their
HMAC key as JSON, for Adyen's Java library to verify the same ones.
"""

import copy
import json
import sys
import threading
import time
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import Adyen
from Adyen.exceptions import AdyenError
from Adyen.util import is_valid_hmac_notification


def expect(what, want, got):
    if want != got:
        raise AssertionError(f"{what}: want {want!r}, got {got!r}")
    print(f"ok  {what}: {got}")


def main(url, key, merchant, out=None):
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
    notifications(adyen, url, key, merchant, out)
    print("Adyen Python library: every call answered as Adyen's library expects")


def api(url, key, method, path, body=None):
    """A call to the service's own API (the webhook endpoint is not Adyen's)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method, headers={
        "Authorization": key, "Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


class Inbox:
    """A notification receiver, as a merchant's Adyen handler is: it keeps
    each NotificationRequest and answers [accepted]."""

    def __init__(self):
        self.got, self.cond = [], threading.Condition()
        inbox = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with inbox.cond:
                    inbox.got.append(json.loads(body))
                    inbox.cond.notify_all()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"[accepted]")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d/adyen-notifications" % self.server.server_address[1]

    def wait(self, code, original, within=90):
        """The NotificationRequest whose item has eventCode code and (for a
        modification) originalReference original."""
        deadline = time.time() + within
        with self.cond:
            while True:
                for req in self.got:
                    item = req["notificationItems"][0]["NotificationRequestItem"]
                    if item["eventCode"] == code and original in (item["pspReference"], item.get("originalReference")):
                        return req
                left = deadline - time.time()
                if left <= 0:
                    raise AssertionError(f"no {code} notification of {original} within {within} s; got {self.got!r}")
                self.cond.wait(left)


def notifications(adyen, url, key, merchant, out):
    inbox = Inbox()
    endpoint = api(url, key, "POST", "/v1/webhook-endpoints",
                   {"url": inbox.url, "enabled_events": ["*"], "format": "adyen", "description": "Adyen library check"})
    hmac_key = endpoint["hmac_key"]
    try:
        payments = adyen.checkout.payments_api
        modifications = adyen.checkout.modifications_api
        payments.baseUrl = modifications.baseUrl = url + "/v2"
        reference = "python-notify-" + str(uuid.uuid4())
        paid = payments.payments({
            "merchantAccount": merchant, "reference": reference, "amount": {"value": 1500, "currency": "EUR"},
            "returnUrl": "https://shop.example.com/return", "additionalData": {"manualCapture": "true"},
            "paymentMethod": {"type": "scheme", "number": "4111111111111111", "expiryMonth": "03",
                              "expiryYear": "2030", "cvc": "737", "holderName": "Python Notifications"},
        }, idempotency_key=str(uuid.uuid4())).message
        expect("payment to notify of: resultCode", "Authorised", paid["resultCode"])
        psp = paid["pspReference"]
        capture = modifications.capture_authorised_payment({
            "merchantAccount": merchant, "amount": {"value": 1000, "currency": "EUR"}}, psp,
            idempotency_key=str(uuid.uuid4())).message
        refund = modifications.refund_captured_payment({
            "merchantAccount": merchant, "amount": {"value": 400, "currency": "EUR"}}, psp,
            idempotency_key=str(uuid.uuid4())).message

        auth = inbox.wait("AUTHORISATION", psp)
        cap = inbox.wait("CAPTURE", psp)
        ref = inbox.wait("REFUND", psp)
        expect("NotificationRequest live", "false", auth["live"])
        for name, req in (("AUTHORISATION", auth), ("CAPTURE", cap), ("REFUND", ref)):
            expect(f"{name} is_valid_hmac_notification", True, is_valid_hmac_notification(req, hmac_key))
        item = auth["notificationItems"][0]["NotificationRequestItem"]
        expect("AUTHORISATION merchantReference", reference, item["merchantReference"])
        expect("AUTHORISATION merchantAccountCode", merchant, item["merchantAccountCode"])
        expect("AUTHORISATION amount", {"value": 1500, "currency": "EUR"}, item["amount"])
        expect("AUTHORISATION success", "true", item["success"])
        item = cap["notificationItems"][0]["NotificationRequestItem"]
        expect("CAPTURE pspReference is the capture's", capture["pspReference"], item["pspReference"])
        expect("CAPTURE amount", 1000, item["amount"]["value"])
        item = ref["notificationItems"][0]["NotificationRequestItem"]
        expect("REFUND pspReference is the refund's", refund["pspReference"], item["pspReference"])
        expect("REFUND originalReference", psp, item["originalReference"])

        tampered = copy.deepcopy(cap)
        tampered["notificationItems"][0]["NotificationRequestItem"]["amount"]["value"] = 100000
        expect("a tampered CAPTURE (amount changed): is_valid_hmac_notification", False,
               is_valid_hmac_notification(tampered, hmac_key))
        expect("the CAPTURE under another key: is_valid_hmac_notification", False,
               is_valid_hmac_notification(cap, "00" * 32))
        if out:
            with open(out, "w") as f:
                json.dump({"hmac_key": hmac_key, "notifications": [auth, cap, ref]}, f)
    finally:
        api(url, key, "DELETE", "/v1/webhook-endpoints/" + endpoint["id"])


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
