package local.paygate;

import com.adyen.Client;
import com.adyen.enums.Environment;
import com.adyen.model.RequestOptions;
import com.adyen.model.checkout.Amount;
import com.adyen.model.checkout.CardDetails;
import com.adyen.model.checkout.CheckoutPaymentMethod;
import com.adyen.model.checkout.ListStoredPaymentMethodsResponse;
import com.adyen.model.checkout.PaymentCaptureRequest;
import com.adyen.model.checkout.PaymentCaptureResponse;
import com.adyen.model.checkout.PaymentLinkRequest;
import com.adyen.model.checkout.PaymentLinkResponse;
import com.adyen.model.checkout.PaymentRefundRequest;
import com.adyen.model.checkout.PaymentRefundResponse;
import com.adyen.model.checkout.PaymentRequest;
import com.adyen.model.checkout.PaymentResponse;
import com.adyen.model.checkout.PaymentReversalRequest;
import com.adyen.model.checkout.PaymentReversalResponse;
import com.adyen.model.checkout.UpdatePaymentLinkRequest;
import com.adyen.service.checkout.ModificationsApi;
import com.adyen.service.checkout.PaymentLinksApi;
import com.adyen.service.checkout.PaymentsApi;
import com.adyen.service.checkout.RecurringApi;
import com.adyen.service.exception.ApiException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;

/**
 * Drives the service's /v2 face with Adyen's own Java library, as a merchant's existing integration would, changing
 * only the base URL and the key (README, "Using Adyen's libraries"): a payment, a partial capture, a partial refund
 * retried with its idempotency key, a refund above what is left, a reversal, and a payment link created, read and
 * expired. Each outcome is then read on the Pay API (/v1), the other face of the same records. Any difference throws,
 * and the process exits non-zero.
 *
 * <p>Usage: AdyenLibraryCheck BASE_URL API_KEY MERCHANT_ACCOUNT
 */
public final class AdyenLibraryCheck {
  private final String url;
  private final String key;
  private final String merchantAccount;
  private final PaymentsApi payments;
  private final ModificationsApi modifications;
  private final PaymentLinksApi links;
  private final RecurringApi recurring;
  private final HttpClient http = HttpClient.newHttpClient();

  private AdyenLibraryCheck(String url, String key, String merchantAccount) {
    this.url = url;
    this.key = key;
    this.merchantAccount = merchantAccount;
    // The three lines of the README: a client with our key, each API class pointed at /v2.
    Client client = new Client(key, Environment.TEST);
    this.payments = new PaymentsApi(client, url + "/v2");
    this.modifications = new ModificationsApi(client, url + "/v2");
    this.links = new PaymentLinksApi(client, url + "/v2");
    this.recurring = new RecurringApi(client, url + "/v2");
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: AdyenLibraryCheck BASE_URL API_KEY MERCHANT_ACCOUNT");
      System.exit(2);
    }
    AdyenLibraryCheck c = new AdyenLibraryCheck(args[0], args[1], args[2]);
    c.captureAndRefund();
    c.reversal();
    c.paymentLink();
    c.storedMethods();
    System.out.println("adyen-java-api-library: every call answered as Adyen's library expects");
  }

  private void captureAndRefund() throws Exception {
    PaymentResponse paid = pay("java-capture-" + UUID.randomUUID(), 1000L);
    String psp = paid.getPspReference();

    PaymentCaptureResponse capture = modifications.captureAuthorisedPayment(psp,
        new PaymentCaptureRequest().merchantAccount(merchantAccount).amount(eur(600L)));
    expect("capture status", "received", capture.getStatus().getValue());
    expect("capture paymentPspReference", psp, capture.getPaymentPspReference());
    expect("/v1 status after the capture", "charged", v1Status(psp));

    RequestOptions once = new RequestOptions().idempotencyKey("java-refund-" + UUID.randomUUID());
    PaymentRefundRequest refund = new PaymentRefundRequest().merchantAccount(merchantAccount).amount(eur(200L));
    PaymentRefundResponse first = modifications.refundCapturedPayment(psp, refund, once);
    PaymentRefundResponse retry = modifications.refundCapturedPayment(psp, refund, once);
    expect("refund status", "received", first.getStatus().getValue());
    expect("a retried refund's pspReference", first.getPspReference(), retry.getPspReference());
    expect("/v1 status after one partial refund", "partially_refunded", v1Status(psp));
    expect("the refund transaction on /v1", "refunded", v1Status(first.getPspReference()));

    try {
      modifications.refundCapturedPayment(psp,
          new PaymentRefundRequest().merchantAccount(merchantAccount).amount(eur(5000L)));
      throw new AssertionError("a refund above what is left was accepted");
    } catch (ApiException e) {
      expect("a refund above what is left: status", "400", String.valueOf(e.getStatusCode()));
      if (e.getResponseBody() == null || !e.getResponseBody().contains("amount.value")) {
        throw new AssertionError("the error body does not name amount.value: " + e.getResponseBody());
      }
    }
  }

  private void reversal() throws Exception {
    PaymentResponse paid = pay("java-reversal-" + UUID.randomUUID(), 700L);
    PaymentReversalResponse rev = modifications.refundOrCancelPayment(paid.getPspReference(),
        new PaymentReversalRequest().merchantAccount(merchantAccount));
    expect("reversal status", "received", rev.getStatus().getValue());
    expect("/v1 status after a reversal of an authorised payment", "cancelled", v1Status(paid.getPspReference()));
  }

  private void paymentLink() throws Exception {
    String reference = "java-link-" + UUID.randomUUID();
    PaymentLinkResponse link = links.paymentLinks(new PaymentLinkRequest().merchantAccount(merchantAccount)
        .amount(eur(2500L)).reference(reference).description("Two tickets"));
    expect("link status", "active", link.getStatus().getValue());
    expect("link reference", reference, link.getReference());
    if (link.getUrl() == null || link.getUrl().isEmpty()) {
      throw new AssertionError("the link has no url");
    }
    PaymentLinkResponse read = links.getPaymentLink(link.getId());
    expect("link read back", link.getUrl(), read.getUrl());
    expect("/v1 link status", "active", v1Field("/v1/payment-links/" + link.getId(), "status"));

    PaymentLinkResponse expired = links.updatePaymentLink(link.getId(),
        new UpdatePaymentLinkRequest().status(UpdatePaymentLinkRequest.StatusEnum.EXPIRED));
    expect("link status after PATCH", "expired", expired.getStatus().getValue());
    expect("/v1 link status after PATCH", "cancelled", v1Field("/v1/payment-links/" + link.getId(), "status"));
  }

  /** storedMethods saves a card for a shopper, lists it through RecurringApi and disables it. */
  private void storedMethods() throws Exception {
    String shopper = "java-shopper-" + UUID.randomUUID();
    String reference = "java-store-" + UUID.randomUUID();
    PaymentRequest req = new PaymentRequest().merchantAccount(merchantAccount).reference(reference)
        .amount(eur(1000L)).returnUrl("https://shop.example.com/return")
        .shopperReference(shopper).storePaymentMethod(true)
        .shopperInteraction(PaymentRequest.ShopperInteractionEnum.ECOMMERCE)
        .recurringProcessingModel(PaymentRequest.RecurringProcessingModelEnum.CARDONFILE)
        .paymentMethod(new CheckoutPaymentMethod(new CardDetails().number("4111111111111111")
            .expiryMonth("03").expiryYear("2030").cvc("737").holderName("Java Library")));
    PaymentResponse res = payments.payments(req, new RequestOptions().idempotencyKey(reference));
    expect("stored: payment resultCode", "Authorised", res.getResultCode().getValue());
    String detail = res.getAdditionalData().get("recurring.recurringDetailReference");

    // A merchant-initiated charge of it, as Adyen's tokenization guide sends one.
    String mitRef = "java-mit-" + UUID.randomUUID();
    PaymentResponse mit = payments.payments(new PaymentRequest().merchantAccount(merchantAccount).reference(mitRef)
        .amount(eur(499L)).returnUrl("https://shop.example.com/return").shopperReference(shopper)
        .shopperInteraction(PaymentRequest.ShopperInteractionEnum.CONTAUTH)
        .recurringProcessingModel(PaymentRequest.RecurringProcessingModelEnum.SUBSCRIPTION)
        .paymentMethod(new CheckoutPaymentMethod(new CardDetails().storedPaymentMethodId(detail))),
        new RequestOptions().idempotencyKey(mitRef));
    expect("ContAuth resultCode", "Authorised", mit.getResultCode().getValue());
    expect("ContAuth recurringDetailReference", detail, mit.getAdditionalData().get("recurring.recurringDetailReference"));
    expect("/v1 recurring_type of the ContAuth charge", "subscription", v1Field("/v1/transactions/" + mit.getPspReference(), "recurring_type"));

    ListStoredPaymentMethodsResponse list = recurring.getTokensForStoredPaymentDetails(shopper, merchantAccount, null);
    expect("stored methods of the shopper", "1", String.valueOf(list.getStoredPaymentMethods().size()));
    expect("stored method lastFour", "1111", list.getStoredPaymentMethods().get(0).getLastFour());
    expect("stored method shopperReference", shopper, list.getShopperReference());
    String id = list.getStoredPaymentMethods().get(0).getId();
    expect("the stored method is the payment's recurringDetailReference", detail, id);

    recurring.deleteTokenForStoredPaymentDetails(id, shopper, merchantAccount);
    list = recurring.getTokensForStoredPaymentDetails(shopper, merchantAccount, null);
    int left = list.getStoredPaymentMethods() == null ? 0 : list.getStoredPaymentMethods().size();
    expect("stored methods after the delete", "0", String.valueOf(left));
    try {
      recurring.deleteTokenForStoredPaymentDetails(id, shopper, merchantAccount);
      throw new AssertionError("a disabled stored method was disabled again");
    } catch (ApiException e) {
      expect("a second delete: status", "404", String.valueOf(e.getStatusCode()));
    }
  }

  /** pay authorises a card payment with manual capture, so the modifications have something to move. */
  private PaymentResponse pay(String reference, long value) throws Exception {
    PaymentRequest req = new PaymentRequest().merchantAccount(merchantAccount).reference(reference)
        .amount(eur(value)).returnUrl("https://shop.example.com/return")
        .additionalData(Map.of("manualCapture", "true"))
        .paymentMethod(new CheckoutPaymentMethod(new CardDetails().number("4111111111111111")
            .expiryMonth("03").expiryYear("2030").cvc("737").holderName("Java Library")));
    PaymentResponse res = payments.payments(req, new RequestOptions().idempotencyKey(reference));
    expect("payment resultCode", "Authorised", res.getResultCode().getValue());
    expect("/v1 status of the payment", "authorized", v1Status(res.getPspReference()));
    return res;
  }

  private static Amount eur(long value) {
    return new Amount().currency("EUR").value(value);
  }

  private String v1Status(String id) throws Exception {
    return v1Field("/v1/transactions/" + id, "status");
  }

  /** v1Field reads one top-level string field of a Pay API resource (no JSON library: the check needs one field). */
  private String v1Field(String path, String field) throws Exception {
    HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(url + path))
        .header("Authorization", key).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (res.statusCode() != 200) {
      throw new AssertionError("GET " + path + ": " + res.statusCode() + " " + res.body());
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + field + "\"\\s*:\\s*\"([^\"]*)\"")
        .matcher(res.body());
    if (!m.find()) {
      throw new AssertionError("GET " + path + ": no " + field + " in " + res.body());
    }
    return m.group(1);
  }

  private static void expect(String what, String want, String got) {
    if (!want.equals(got)) {
      throw new AssertionError(what + ": want " + want + ", got " + got);
    }
    System.out.println("ok  " + what + ": " + got);
  }
}
