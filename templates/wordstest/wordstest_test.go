package wordstest

import (
	"testing"

	"github.com/reconcile-demo/reconcile-demo/templates"
)

func TestVariantsFound(t *testing.T) {
	for _, tc := range []struct {
		ja   string
		want int
	}{
		{"コントローラー", 0},
		{"コントローラーのログ", 0},
		{"コントローラ", 1},
		{"コントローラのログ", 1},
		{"コントローラ と コントローラー", 1},
		{"Pod のガベージコレクターが片付ける", 0},
		{"ガベージコレクタが片付ける", 1},
		{"ファイナライザーを外す", 0},
		{"ファイナライザを外す", 1},
		{"レートリミッター", 0},
		{"レートリミッタ", 1},
		{"API サーバー", 0},
		{"サーバとの接続", 1},
		{"Pod の立ち退き", 0},
		{"Pod を退避する", 1},
		{"コントローラが退避させる", 2},
		{"controller: 監視を開始しました", 0},
	} {
		got := variantsIn(templates.Catalog{"k": {tc.ja, "en"}})
		if len(got) != tc.want {
			t.Errorf("%q: found %d variants, want %d: %q", tc.ja, len(got), tc.want, got)
		}
	}
}
