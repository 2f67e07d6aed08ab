package redact

import "testing"

func TestSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "api-key": true, "password": true, "sslpassword": true, "Authorization": true,
		"header": true, "X-Amz-Signature": true, "db": false, "from": false, "limit": false, "sslmode": false, "thread": false,
	} {
		if got := Secret(name); got != want {
			t.Errorf("Secret(%q) = %v, want %v", name, got, want)
		}
	}
}
