package dropin

// released records the SHA-256 of every file of each released version. A
// released version's files are cached for a year by browsers and pinned by
// merchants' pages (subresource integrity), so they never change:
// TestReleasedVersionsDoNotChange fails on an edit, and a change ships as a
// new version directory (assets/<version>/) and a new Version.
var released = map[string]map[string]string{
	"1.0.0": {
		"acs.html":   "f7f65538fad1ddc7788846e3b5f4c082824e1b74c40170210c68691185d6d5b7",
		"acs.js":     "b05128a277f5f0b9ddf9769cdbf4e1aadc6c58b5bf40e8aadf3ff00b6e691c7a",
		"dropin.css": "43faf61726f61427ab6b426575cf051d26efc155b2f06b447f5b6dd893e33082",
		"dropin.js":  "8956de2092acdf327a8a2d9c6db050c7ceb11b3ee42eb78631837921434c6ad8",
		"hosted.js":  "d303c749f2dd20cea6ef94ba0a28d840fb4552829a5313b1f098a079061c1166",
	},
	"1.1.0": {
		"acs.html":   "f7f65538fad1ddc7788846e3b5f4c082824e1b74c40170210c68691185d6d5b7",
		"acs.js":     "59a395b2b13c5500789ca344b400887e12b1ce676f9ccc52205d550b07a1396a",
		"dropin.css": "6853f5e906a31aef10f542d58666ef7a1fea5adc1159b75d59866889bb650dcf",
		"dropin.js":  "bd0240bda9afb3dd6bdeb161556b3b272ded2dc9021ceae41eff8a565843f47e",
		"hosted.js":  "5688252410b02be9c0aa74f74879402919b455e15ea4ca57480f655eed3b53e4",
	},
}
