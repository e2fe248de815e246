// Package money is not an API package: its types are used as they are.
package money

// Amount is a sum in a currency.
type Amount struct {
	Currency string `json:"currency"`
	Cents    int64  `json:"cents"`
}
