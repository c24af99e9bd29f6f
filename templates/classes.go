package templates

func bodyClass(p PageProps) string {
	c := "page"
	if p.Present {
		c += " present"
	}
	if p.Embed {
		c += " embed"
	}
	return c
}

func mainClass(p PageProps) string {
	if len(p.Demos) > 1 {
		return "demos demos-2"
	}
	return "demos"
}
