// Package keyed reduces a list to one element per key, as the controllers' layered inputs need: env layers merged
// by name, templates named alike, a component reported twice.
package keyed

// Merge keeps one element per key, in the place of the key's first element; each later element of the key is
// merged into it by merge, or replaces it when merge is nil.
func Merge[T any, K comparable](items []T, key func(T) K, merge func(earlier, later T) T) []T {
	at := map[K]int{}
	var out []T
	for _, item := range items {
		k := key(item)
		i, ok := at[k]
		switch {
		case !ok:
			at[k] = len(out)
			out = append(out, item)
		case merge != nil:
			out[i] = merge(out[i], item)
		default:
			out[i] = item
		}
	}
	return out
}
