// Package processornotices receives the notifications of the remote card
// processors that the service's connectors use (issue 32): today Adyen's
// standard notifications, at POST /webhooks/adyen/{connector_id}
// (ProcessorNoticesFunction). Adyen tells what became of the payments an
// Adyen connector made: a capture, refund or cancel it confirms or fails
// after answering the modification "received", an authorisation, a
// chargeback.
//
// Decisions:
//
//   - The connector is the path's id, looked up through Keys: its account and
//     its HMAC key. The builder takes the function's connector directory
//     (connectors.Set.CardConnectors) as Keys when it implements
//     NotificationKey; without one no connector is known. An unknown connector
//     is a 404 (unknown_connector). The route takes no API key: the HMAC of
//     every item (additionalData.hmacSignature, Adyen's algorithm,
//     shared/pay/adyen) is the credential; one item without a valid signature
//     refuses the whole request with a 401 (invalid_hmac_signature) and
//     nothing is recorded. The body is decoded strictly, as every body is
//     (Adyen's documented fields, lengths, no controls): anything else is a
//     400, and so is an item without eventCode, pspReference or a success of
//     "true" or "false" (invalid_notification). The body limit is the
//     platform's. The answer, once every item is recorded, is "[accepted]"
//     (text/plain, 200), which is what makes Adyen stop resending.
//   - Matching: the connector sends our payment id as Adyen's reference, so
//     merchantReference is the payment (of the connector's account), which
//     must have been made through this connector (Flow.Connector) and carry
//     the processor's reference (Flow.ProcessorRef) that the item names:
//     originalReference for a modification's outcome (CAPTURE, REFUND,
//     CANCELLATION, CAPTURE_FAILED, REFUND_FAILED, and the other
//     modification codes), pspReference for AUTHORISATION and CHARGEBACK,
//     which are about the payment itself. A notice that matches no payment
//     is recorded as unmatched and alarmed (an Error log line "processor
//     notice unmatched" and the ProcessorNoticesUnmatched metric), and still
//     accepted: it is never lost.
//   - Exactly once: one record per (connector, eventCode, pspReference,
//     success), Adyen's identity of a notification, written put-if-absent in
//     one transaction with its effect on the payment (conditioned on the
//     payment's version). Adyen resends until it reads "[accepted]"; a
//     duplicate finds the record, changes nothing and is accepted. Logs and
//     metrics follow the commit, so a notice alarms once.
//   - Effects: a successful CAPTURE, REFUND or CANCELLATION confirms a
//     modification the service already applied when the processor answered
//     "received": the payment keeps a mark of it (Flow.ProcessorNotices) and
//     nothing else changes. AUTHORISATION is recorded and marked.
//     CAPTURE_FAILED, REFUND_FAILED and any success=false are recorded,
//     marked and alarmed ("processor notice needs an operator", the
//     ProcessorNoticesAlarmed metric): the service already moved the balance
//     when the processor accepted the request, so an operator settles the
//     difference; nothing changes a balance silently. A CHARGEBACK is
//     recorded, marked and alarmed the same way: the disputes area opens a
//     dispute only as the sandbox's test helper (test mode, its own
//     transaction), not from an issuer's notice. Other event codes are
//     recorded and marked, with an Info line.
//   - The records live in the payments table under pnotice#<connector>
//     (Area.Keys); they hold the item's fields, never its signature.
package processornotices
