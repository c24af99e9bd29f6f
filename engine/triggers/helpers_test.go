package triggers

import (
	"encoding/json"
	"reflect"
)

// equalJSON reports whether two values encode to the same JSON.
func equalJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(ja, jb)
}
