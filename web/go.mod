module github.com/reconcile-demo/reconcile-demo/web

go 1.26
