print("bots")
