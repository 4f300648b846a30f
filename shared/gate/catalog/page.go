package catalog

// scanMax bounds the catalog items one list request reads (see listing).
const scanMax = 2000
