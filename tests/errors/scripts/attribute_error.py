class Model:
    def __init__(self):
        self.scale = 2


m = Model()
print(m.sacle)
