package idempotency

// legacyFingerprint is the unkeyed fingerprint of a raw body, as records
// stored before keyed fingerprints hold it (the tests write such records).
func legacyFingerprint(method, path string, body []byte) string {
	return legacyFingerprintOf(method, path, canonical(body))
}
