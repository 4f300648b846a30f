package wallet

import "github.com/paygate/paygate/shared/domain/kzid"

// CheckIIN checks a Kazakh individual identification number (kzid.CheckIIN:
// twelve digits, a real birth date, the century digit and the official
// check digit), naming the field iin.
func CheckIIN(s string) error { return kzid.CheckIIN("iin", s) }

// CheckPhone accepts an E.164 number (kzid.CheckPhone), naming the field
// phoneNumber.
func CheckPhone(s string) error { return kzid.CheckPhone("phoneNumber", s) }
