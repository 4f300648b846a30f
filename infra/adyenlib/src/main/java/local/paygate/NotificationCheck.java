package local.paygate;

import com.adyen.model.notification.NotificationRequest;
import com.adyen.model.notification.NotificationRequestItem;
import com.adyen.notification.WebhookHandler;
import com.adyen.util.HMACValidator;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Adyen's Java library verifies the Adyen-format notifications the service
 * sent in the Python library's check (infra/adyenpy/check.py wrote them, as
 * received, with their endpoint's HMAC key): each NotificationRequest parses
 * with WebhookHandler, each item passes HMACValidator, and a tampered copy
 * fails it.
 *
 * usage: NotificationCheck FILE
 */
public final class NotificationCheck {
    private NotificationCheck() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: NotificationCheck FILE");
            System.exit(2);
        }
        JsonObject saved = JsonParser.parseString(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8)).getAsJsonObject();
        String key = saved.get("hmac_key").getAsString();
        JsonArray notifications = saved.getAsJsonArray("notifications");
        if (notifications.size() == 0) {
            throw new AssertionError("no notifications to verify");
        }
        WebhookHandler handler = new WebhookHandler();
        HMACValidator validator = new HMACValidator();
        for (JsonElement n : notifications) {
            NotificationRequest request = handler.handleNotificationJson(n.toString());
            expect("live", "false", request.getLive());
            for (NotificationRequestItem item : request.getNotificationItems()) {
                String what = item.getEventCode() + " " + item.getPspReference();
                expect(what + ": HMACValidator.validateHMAC", true, validator.validateHMAC(item, key));
                expect(what + ": eventDate parsed", true, item.getEventDate() != null);
                long value = item.getAmount().getValue();
                item.getAmount().setValue(value + 1);
                expect(what + " with its amount changed: HMACValidator.validateHMAC", false, validator.validateHMAC(item, key));
                item.getAmount().setValue(value);
                item.setSuccess(!item.isSuccess());
                expect(what + " with success flipped: HMACValidator.validateHMAC", false, validator.validateHMAC(item, key));
            }
        }
        System.out.println("Adyen Java library: every notification verified, every tampered copy refused");
    }

    private static void expect(String what, Object want, Object got) {
        if (!want.equals(got)) {
            throw new AssertionError(what + ": want " + want + ", got " + got);
        }
        System.out.println("ok  " + what + ": " + got);
    }
}
