package resource

import "k8s.io/apiserver/pkg/registry/rest"

// NewTableConvertorForTest exposes a kind's table convertor to tests without storage.
func NewTableConvertorForTest[T Object](def Definition[T]) (rest.TableConvertor, error) {
	if err := def.Check(); err != nil {
		return nil, err
	}
	return newTableConvertor(def.Columns, !def.NoAge), nil
}
