package dashboard

// CheckPasswordForTest hashes pw at p and checks it and a wrong one.
func CheckPasswordForTest(pw string, p ArgonParams) (right, wrong bool) {
	h, err := hashPassword(pw, p)
	if err != nil {
		return false, true
	}
	return checkPassword(pw, h), checkPassword(pw+"x", h)
}

// SetAuditIDs makes s draw audit entry ids from f.
func SetAuditIDs(s *Service, f func() string) { s.auditID = f }
