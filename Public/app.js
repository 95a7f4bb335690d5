// wsx
