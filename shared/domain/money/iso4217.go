package money

// x/text/currency carries CLDR 32 data (2017). CLDR's digits are display
// digits, not ISO 4217 minor units, and the data predates several ISO changes,
// so these tables correct it. TestExponentsMatchISO4217 checks every code this
// package accepts against ISO's own short list of non-2-digit currencies.

// isoMinorUnits overrides x/text's Standard digits where ISO 4217 differs.
// CLDR shows 0 digits for these, but ISO 4217 (and card schemes) use 2, or 3
// for IQD.
var isoMinorUnits = map[string]int{
	"AFN": 2, "ALL": 2, "AMD": 2, "COP": 2, "GYD": 2, "IDR": 2, "IQD": 3,
	"IRR": 2, "KPW": 2, "LAK": 2, "LBP": 2, "MGA": 2, "MMK": 2, "MNT": 2,
	"MUR": 2, "PKR": 2, "RSD": 2, "SLL": 2, "SOS": 2, "SYP": 2, "TZS": 2,
	"UZS": 2, "YER": 2,
}

// newerCodes are ISO 4217 list-one codes that x/text does not know (added
// after CLDR 32) or marks historical though ISO still lists them (SVC).
var newerCodes = map[string]int{
	"MRU": 2, "SLE": 2, "SVC": 2, "UYW": 4, "VED": 2, "VES": 2, "XCG": 2, "ZWG": 2,
}

// rejectedCodes are in x/text's current-use data but are not ISO 4217
// currencies a payment can be in: withdrawn by ISO since CLDR 32 (HRK, MRO,
// VEF), offshore non-ISO (CNH), or with no minor unit at all (precious
// metals, bond-market units, SDR, testing and "no currency" codes).
var rejectedCodes = map[string]bool{
	"CNH": true, "HRK": true, "MRO": true, "VEF": true,
	"XAG": true, "XAU": true, "XBA": true, "XBB": true, "XBC": true, "XBD": true,
	"XDR": true, "XPD": true, "XPT": true, "XSU": true, "XTS": true, "XUA": true,
	"XXX": true,
}
