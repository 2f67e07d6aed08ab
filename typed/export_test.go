package typed

// CacheSmallStates makes graphs created until the returned function is
// called keep their decoded state however few fields it has, so tests of
// the cache can use small structs.
func CacheSmallStates() (restore func()) {
	cacheFrom = 1
	return func() { cacheFrom = cacheFromFields }
}
