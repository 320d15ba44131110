package q

func Skipped() {}
